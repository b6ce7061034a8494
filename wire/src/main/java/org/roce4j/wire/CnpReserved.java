package org.roce4j.wire;

/**
 * The 16 reserved bytes after the BTH of a RoCEv2 CNP (Annex A17.9.3). Senders write zeros;
 * they are kept as read so that a captured CNP re-encodes to the same bytes.
 */
public record CnpReserved(long high, long low) implements ExtensionHeader {
    /** The all-zero reserved field that senders should use. */
    public static final CnpReserved ZERO = new CnpReserved(0, 0);

    static CnpReserved decode(byte[] b, int off) {
        return new CnpReserved(Bytes.i64(b, off), Bytes.i64(b, off + 8));
    }

    @Override
    public HeaderType type() {
        return HeaderType.CNP_RESERVED;
    }

    @Override
    public void encode(byte[] b, int off) {
        Bytes.i64(b, off, high);
        Bytes.i64(b, off + 8, low);
    }
}
