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
        Bytes.i32(b, off, immediateData);
    }
}
