package org.roce4j.wire;

/**
 * Atomic Extended Transport Header (IBTA §9.3.5): virtual address, R_Key, swap (or add) data and
 * compare data. FetchAdd ignores the compare field.
 */
public record AtomicEth(long virtualAddress, int rkey, long swapOrAddData, long compareData)
        implements ExtensionHeader {
    static AtomicEth decode(byte[] b, int off) {
        return new AtomicEth(Bytes.i64(b, off), Bytes.i32(b, off + 8), Bytes.i64(b, off + 12), Bytes.i64(b, off + 20));
    }

    @Override
    public HeaderType type() {
        return HeaderType.ATOMIC_ETH;
    }

    @Override
    public void encode(byte[] b, int off) {
        write(b, off, virtualAddress, rkey, swapOrAddData, compareData);
    }

    static void write(byte[] b, int off, long virtualAddress, int rkey, long swapOrAddData, long compareData) {
        Bytes.i64(b, off, virtualAddress);
        Bytes.i32(b, off + 8, rkey);
        Bytes.i64(b, off + 12, swapOrAddData);
        Bytes.i64(b, off + 20, compareData);
    }
}
