package org.roce4j.wire;

/** XRC Extended Transport Header (IBTA Annex A14.3.1.1): 8 reserved bits, 24-bit XRC SRQ number. */
public record Xrceth(int xrcSrq) implements ExtensionHeader {
    public Xrceth {
        Bytes.require24("XRC SRQ", xrcSrq);
    }

    static Xrceth decode(byte[] b, int off) {
        return new Xrceth(Bytes.u24(b, off + 1));
    }

    @Override
    public HeaderType type() {
        return HeaderType.XRCETH;
    }

    @Override
    public void encode(byte[] b, int off) {
        Bytes.u8(b, off, 0);
        Bytes.u24(b, off + 1, xrcSrq);
    }
}
