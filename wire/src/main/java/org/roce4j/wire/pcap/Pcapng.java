package org.roce4j.wire.pcap;

/**
 * The pcapng constants roce4j reads and writes (draft-ietf-opsawg-pcapng, "PCAP Now Generic (pcapng)
 * Capture File Format"): block types, option codes, and the block framing both sides share.
 */
final class Pcapng {
    /** §4.1 Section Header Block; the value reads the same in either byte order. */
    static final int SECTION_HEADER = 0x0A0D0D0A;
    /** §4.2 Interface Description Block. */
    static final int INTERFACE_DESCRIPTION = 1;
    /** Appendix: the obsolete Packet Block, still in files written by old tools. */
    static final int OBSOLETE_PACKET = 2;
    /** §4.4 Simple Packet Block. */
    static final int SIMPLE_PACKET = 3;
    /** §4.3 Enhanced Packet Block. */
    static final int ENHANCED_PACKET = 6;
    /** §4.1: written in the writer's byte order, so that a reader learns it. */
    static final int BYTE_ORDER_MAGIC = 0x1A2B3C4D;
    /** §4.1: the only major version; minor 0 (1.2's 2 was never in use as a different format). */
    static final int MAJOR_VERSION = 1;

    /** §3.5 opt_endofopt. */
    static final int OPT_END = 0;
    /** §3.5 opt_comment: UTF-8, in any block. */
    static final int OPT_COMMENT = 1;
    /** §4.2 if_tsresol: one byte; MSB 0 = 10^-n seconds, MSB 1 = 2^-n. */
    static final int IF_TSRESOL = 9;
    /** §4.2 if_tsoffset: seconds added to every timestamp of the interface, signed 64 bits. */
    static final int IF_TSOFFSET = 14;

    /** Block type, total length; the total length again at the end. */
    static final int BLOCK_HEADER = 8;
    static final int BLOCK_TRAILER = 4;

    private Pcapng() {
    }

    /** {@return {@code length} rounded up to the 32-bit boundary every field ends on (§3.1)} */
    static int padded(int length) {
        return (length + 3) & ~3;
    }
}
