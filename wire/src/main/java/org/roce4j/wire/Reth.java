package org.roce4j.wire;

/** RDMA Extended Transport Header (IBTA §9.3.4): 64-bit virtual address, R_Key, 32-bit DMA length. */
public record Reth(long virtualAddress, int rkey, int dmaLength) implements ExtensionHeader {
    static Reth decode(byte[] b, int off) {
        return new Reth(Bytes.i64(b, off), Bytes.i32(b, off + 8), Bytes.i32(b, off + 12));
    }

    @Override
    public HeaderType type() {
        return HeaderType.RETH;
    }

    @Override
    public void encode(byte[] b, int off) {
        write(b, off, virtualAddress, rkey, dmaLength);
    }

    static void write(byte[] b, int off, long virtualAddress, int rkey, int dmaLength) {
        Bytes.i64(b, off, virtualAddress);
        Bytes.i32(b, off + 8, rkey);
        Bytes.i32(b, off + 12, dmaLength);
    }

    /** The DMA length as the unsigned value it is on the wire. */
    public long dmaLengthUnsigned() {
        return Integer.toUnsignedLong(dmaLength);
    }
}
