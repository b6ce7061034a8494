package org.roce4j.wire;

/** Atomic Acknowledge Extended Transport Header (IBTA §9.3.7): the original remote data. */
public record AtomicAckEth(long originalData) implements ExtensionHeader {
    static AtomicAckEth decode(byte[] b, int off) {
        return new AtomicAckEth(Bytes.i64(b, off));
    }

    @Override
    public HeaderType type() {
        return HeaderType.ATOMIC_ACK_ETH;
    }

    @Override
    public void encode(byte[] b, int off) {
        write(b, off, originalData);
    }

    static void write(byte[] b, int off, long originalData) {
        Bytes.i64(b, off, originalData);
    }
}
