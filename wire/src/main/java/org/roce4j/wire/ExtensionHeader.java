package org.roce4j.wire;

/**
 * A header that follows the BTH (IBTA Vol. 1 §9.3, §9.5 and the 1.5 memory placement
 * extensions). Each is an immutable record with a fixed length ({@link HeaderType#length()});
 * {@link #decode(HeaderType, byte[], int)} and {@link #encode(byte[], int)} are exact inverses for
 * every field the header defines (reserved bits are written as zero and ignored on receipt, as
 * IBTA requires of reserved fields).
 */
public sealed interface ExtensionHeader
        permits Rdeth, Deth, Xrceth, Feth, Reth, AtomicEth, Aeth, AtomicAckEth, ImmDt, Ieth, CnpReserved {

    /** Which header this is. */
    HeaderType type();

    /** Writes the header's {@code type().length()} bytes at {@code offset}. */
    void encode(byte[] buffer, int offset);

    /**
     * Reads the header of type {@code type} at {@code offset}; the caller guarantees
     * {@code type.length()} bytes are there.
     *
     * @throws IllegalArgumentException for {@link HeaderType#BTH}, which is not an extension header
     */
    static ExtensionHeader decode(HeaderType type, byte[] buffer, int offset) {
        return switch (type) {
            case RDETH -> Rdeth.decode(buffer, offset);
            case DETH -> Deth.decode(buffer, offset);
            case XRCETH -> Xrceth.decode(buffer, offset);
            case FETH -> Feth.decode(buffer, offset);
            case RETH -> Reth.decode(buffer, offset);
            case ATOMIC_ETH -> AtomicEth.decode(buffer, offset);
            case AETH -> Aeth.decode(buffer, offset);
            case ATOMIC_ACK_ETH -> AtomicAckEth.decode(buffer, offset);
            case IMM_DT -> ImmDt.decode(buffer, offset);
            case IETH -> Ieth.decode(buffer, offset);
            case CNP_RESERVED -> CnpReserved.decode(buffer, offset);
            case BTH -> throw new IllegalArgumentException("BTH is not an extension header");
        };
    }
}
