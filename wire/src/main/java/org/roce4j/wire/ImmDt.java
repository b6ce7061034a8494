package org.roce4j.wire;

/** Immediate Data Extended Transport Header (IBTA §9.3.8): 32 bits, opaque to the transport. */
public record ImmDt(int immediateData) implements ExtensionHeader {
    static ImmDt decode(byte[] b, int off) {
        return new ImmDt(Bytes.i32(b, off));
    }

    @Override
    public HeaderType type() {
        return HeaderType.IMM_DT;
    }

    @Override
    public void encode(byte[] b, int off) {
        write(b, off, immediateData);
    }

    static void write(byte[] b, int off, int immediateData) {
        Bytes.i32(b, off, immediateData);
    }
}
