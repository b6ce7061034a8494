package org.roce4j.wire;

/**
 * InfiniBand Local Route Header (IBTA Vol. 1 §7.7), 8 bytes, the first header of every packet on
 * an InfiniBand link:
 * <pre>
 *  byte 0      VL(7-4) | LVer(3-0)
 *  byte 1      SL(7-4) | reserved(3-2) | LNH(1-0)
 *  bytes 2-3   DLID
 *  bytes 4-5   reserved(15-11) | PktLen(10-0)
 *  bytes 6-7   SLID
 * </pre>
 * LVer is 0 (§7.7.3). LNH and PktLen are not fields: the encoder derives LNH from whether a GRH
 * follows (IBA global, or IBA local when BTH follows at once, §7.7.6) and PktLen from the packet's
 * length; the decoder checks them.
 */
public record Lrh(int virtualLane, int serviceLevel, int destinationLid, int sourceLid) {
    public static final int LENGTH = 8;
    /** LNH 2: "IBA local", BTH follows the LRH (§7.7.6). */
    static final int LNH_IBA_LOCAL = 2;
    /** LNH 3: "IBA global", a GRH follows the LRH (§7.7.6). */
    static final int LNH_IBA_GLOBAL = 3;
    /** The largest PktLen, 11 bits of 4-byte words (§7.7.8). */
    static final int MAX_PACKET_WORDS = 0x7FF;

    public Lrh {
        Bytes.requireRange("VL", virtualLane, 0, 15);
        Bytes.requireRange("SL", serviceLevel, 0, 15);
        Bytes.requireRange("DLID", destinationLid, 0, 0xFFFF);
        Bytes.requireRange("SLID", sourceLid, 0, 0xFFFF);
    }

    /**
     * Writes the header of a packet whose LRH-to-ICRC length is {@code packetBytes} (IBTA §7.7.8:
     * PktLen counts 4-byte words from the first byte of the LRH to the last of the ICRC; the VCRC
     * is not counted).
     */
    void encode(byte[] b, int off, boolean global, int packetBytes) {
        Bytes.u8(b, off, virtualLane << 4); // LVer 0
        Bytes.u8(b, off + 1, serviceLevel << 4 | (global ? LNH_IBA_GLOBAL : LNH_IBA_LOCAL));
        Bytes.u16(b, off + 2, destinationLid);
        Bytes.u16(b, off + 4, packetBytes / 4);
        Bytes.u16(b, off + 6, sourceLid);
    }

    static Lrh decode(byte[] b, int off) {
        return new Lrh(Bytes.u8(b, off) >>> 4, Bytes.u8(b, off + 1) >>> 4, Bytes.u16(b, off + 2), Bytes.u16(b, off + 6));
    }

    static int linkVersion(byte[] b, int off) {
        return Bytes.u8(b, off) & 0xF;
    }

    static int linkNextHeader(byte[] b, int off) {
        return Bytes.u8(b, off + 1) & 0x3;
    }

    /** PktLen in bytes: LRH through ICRC. */
    static int packetBytes(byte[] b, int off) {
        return (Bytes.u16(b, off + 4) & MAX_PACKET_WORDS) * 4;
    }
}
