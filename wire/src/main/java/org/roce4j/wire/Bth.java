package org.roce4j.wire;

/**
 * Base Transport Header (IBTA Vol. 1 §9.2), 12 bytes:
 * <pre>
 *  byte 0      OpCode
 *  byte 1      SE(7) | MigReq(6) | PadCnt(5-4) | TVer(3-0)
 *  bytes 2-3   P_Key
 *  byte 4      FECN(7) | BECN(6) | reserved (RoCEv2 A17.4.1; all of byte 4 is masked in the ICRC)
 *  bytes 5-7   DestQP
 *  byte 8      AckReq(7) | reserved
 *  bytes 9-11  PSN
 * </pre>
 */
public record Bth(Opcode opcode, boolean solicitedEvent, boolean migReq, int padCount,
                  int transportVersion, int pkey, boolean fecn, boolean becn, int destQp,
                  boolean ackReq, int psn) {

    /** The default partition key (IBTA §10.9.1.2: full member of the default partition). */
    public static final int DEFAULT_PKEY = 0xFFFF;

    public Bth {
        if (opcode == null) {
            throw new IllegalArgumentException("opcode is required");
        }
        Bytes.requireRange("pad count", padCount, 0, 3);
        Bytes.requireRange("transport version", transportVersion, 0, 15);
        Bytes.requireRange("P_Key", pkey, 0, 0xFFFF);
        Bytes.require24("destination QP", destQp);
        Bytes.require24("PSN", psn);
    }

    /**
     * A BTH with the default P_Key and every flag clear, MigReq included: that is what Linux rxe
     * sends (every frame of shared/reference-pcaps has M=0).
     */
    public static Bth of(Opcode opcode, int destQp, int psn) {
        return new Bth(opcode, false, false, 0, 0, DEFAULT_PKEY, false, false, destQp, false, psn);
    }

    /** Reads a BTH whose opcode byte is known to be defined (see {@link Opcode#lookup(int)}). */
    static Bth decode(byte[] b, int off) {
        int flags = Bytes.u8(b, off + 1);
        int congestion = Bytes.u8(b, off + 4);
        return new Bth(Opcode.lookup(Bytes.u8(b, off)),
                (flags & 0x80) != 0, (flags & 0x40) != 0, flags >>> 4 & 0x3, flags & 0xF,
                Bytes.u16(b, off + 2),
                (congestion & 0x80) != 0, (congestion & 0x40) != 0,
                Bytes.u24(b, off + 5),
                (Bytes.u8(b, off + 8) & 0x80) != 0,
                Bytes.u24(b, off + 9));
    }

    /** Writes the 12 bytes at {@code off}. */
    public void encode(byte[] b, int off) {
        write(b, off, opcode, solicitedEvent, migReq, padCount, transportVersion, pkey, fecn, becn, destQp, ackReq, psn);
    }

    static void write(byte[] b, int off, Opcode opcode, boolean solicitedEvent, boolean migReq, int padCount,
                      int transportVersion, int pkey, boolean fecn, boolean becn, int destQp, boolean ackReq, int psn) {
        Bytes.u8(b, off, opcode.code());
        Bytes.u8(b, off + 1, (solicitedEvent ? 0x80 : 0) | (migReq ? 0x40 : 0) | padCount << 4 | transportVersion);
        Bytes.u16(b, off + 2, pkey);
        Bytes.u8(b, off + 4, (fecn ? 0x80 : 0) | (becn ? 0x40 : 0));
        Bytes.u24(b, off + 5, destQp);
        Bytes.u8(b, off + 8, ackReq ? 0x80 : 0);
        Bytes.u24(b, off + 9, psn);
    }

    public Bth withOpcode(Opcode value) {
        return new Bth(value, solicitedEvent, migReq, padCount, transportVersion, pkey, fecn, becn, destQp, ackReq, psn);
    }

    public Bth withSolicitedEvent(boolean value) {
        return new Bth(opcode, value, migReq, padCount, transportVersion, pkey, fecn, becn, destQp, ackReq, psn);
    }

    public Bth withMigReq(boolean value) {
        return new Bth(opcode, solicitedEvent, value, padCount, transportVersion, pkey, fecn, becn, destQp, ackReq, psn);
    }

    public Bth withPadCount(int value) {
        return new Bth(opcode, solicitedEvent, migReq, value, transportVersion, pkey, fecn, becn, destQp, ackReq, psn);
    }

    public Bth withPkey(int value) {
        return new Bth(opcode, solicitedEvent, migReq, padCount, transportVersion, value, fecn, becn, destQp, ackReq, psn);
    }

    public Bth withCongestion(boolean fecnValue, boolean becnValue) {
        return new Bth(opcode, solicitedEvent, migReq, padCount, transportVersion, pkey, fecnValue, becnValue, destQp, ackReq, psn);
    }

    public Bth withAckReq(boolean value) {
        return new Bth(opcode, solicitedEvent, migReq, padCount, transportVersion, pkey, fecn, becn, destQp, value, psn);
    }
}
