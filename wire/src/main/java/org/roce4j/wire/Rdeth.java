package org.roce4j.wire;

/** Reliable Datagram Extended Transport Header (IBTA §9.3.2): 8 reserved bits, 24-bit EE context. */
public record Rdeth(int eeContext) implements ExtensionHeader {
    public Rdeth {
        Bytes.require24("EE context", eeContext);
    }

    static Rdeth decode(byte[] b, int off) {
        return new Rdeth(Bytes.u24(b, off + 1));
    }

    @Override
    public HeaderType type() {
        return HeaderType.RDETH;
    }

    @Override
    public void encode(byte[] b, int off) {
        Bytes.u8(b, off, 0);
        Bytes.u24(b, off + 1, eeContext);
    }
}
