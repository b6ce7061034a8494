package org.roce4j.wire;

/** Datagram Extended Transport Header (IBTA §9.3.3): 32-bit Q_Key, 8 reserved bits, 24-bit source QP. */
public record Deth(int qkey, int sourceQp) implements ExtensionHeader {
    public Deth {
        Bytes.require24("source QP", sourceQp);
    }

    static Deth decode(byte[] b, int off) {
        return new Deth(Bytes.i32(b, off), Bytes.u24(b, off + 5));
    }

    @Override
    public HeaderType type() {
        return HeaderType.DETH;
    }

    @Override
    public void encode(byte[] b, int off) {
        write(b, off, qkey, sourceQp);
    }

    static void write(byte[] b, int off, int qkey, int sourceQp) {
        Bytes.i32(b, off, qkey);
        Bytes.u8(b, off + 4, 0);
        Bytes.u24(b, off + 5, sourceQp);
    }
}
