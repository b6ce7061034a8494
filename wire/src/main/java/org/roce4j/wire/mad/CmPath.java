package org.roce4j.wire.mad;

/**
 * A path as a REQ carries it, twice (IBTA Vol. 1 table 106: the primary path from byte 52, the
 * alternate from byte 96). On RoCE the LIDs are 0xFFFF (Linux cm.c {@code cm_format_req}: the
 * permissive LID) and the GIDs carry the IP addresses; an unused alternate path is all zeros.
 *
 * @param localLid        local port LID
 * @param remoteLid       remote port LID
 * @param localGid        local port GID, 16 bytes
 * @param remoteGid       remote port GID, 16 bytes
 * @param flowLabel       20-bit flow label
 * @param packetRate      6-bit packet rate (IBTA table 225 / Linux {@code enum ib_rate})
 * @param trafficClass    traffic class
 * @param hopLimit        hop limit
 * @param sl              4-bit service level
 * @param subnetLocal     both ends are in one subnet
 * @param localAckTimeout 5-bit local ACK timeout exponent (4.096 µs × 2^value)
 */
public record CmPath(int localLid, int remoteLid, byte[] localGid, byte[] remoteGid, int flowLabel, int packetRate,
                     int trafficClass, int hopLimit, int sl, boolean subnetLocal, int localAckTimeout) {

    /** A path's bytes in the REQ. */
    static final int LENGTH = 44;

    // IBTA table 106, CM_REQ_PRIMARY_* of ibta_vol1_c12.h less the primary path's offset 52.
    private static final Field LOCAL_LID = Field.at(0, 16);
    private static final Field REMOTE_LID = Field.at(2, 16);
    private static final Field LOCAL_GID = Field.bytes(4, 16);
    private static final Field REMOTE_GID = Field.bytes(20, 16);
    private static final Field FLOW_LABEL = Field.at(36, 20);
    private static final Field PACKET_RATE = Field.bits(39, 2, 6);
    private static final Field TRAFFIC_CLASS = Field.at(40, 8);
    private static final Field HOP_LIMIT = Field.at(41, 8);
    private static final Field SL = Field.at(42, 4);
    private static final Field SUBNET_LOCAL = Field.bits(42, 4, 1);
    private static final Field LOCAL_ACK_TIMEOUT = Field.at(43, 5);

    /** The unused alternate path: every field zero (after the table, which its constructor reads). */
    public static final CmPath NONE = new CmPath(0, 0, new byte[16], new byte[16], 0, 0, 0, 0, 0, false, 0);

    public CmPath {
        LOCAL_LID.check("local LID", localLid);
        REMOTE_LID.check("remote LID", remoteLid);
        localGid = gid("local GID", localGid);
        remoteGid = gid("remote GID", remoteGid);
        FLOW_LABEL.check("flow label", flowLabel);
        PACKET_RATE.check("packet rate", packetRate);
        TRAFFIC_CLASS.check("traffic class", trafficClass);
        HOP_LIMIT.check("hop limit", hopLimit);
        SL.check("SL", sl);
        LOCAL_ACK_TIMEOUT.check("local ACK timeout", localAckTimeout);
    }

    private static byte[] gid(String name, byte[] gid) {
        if (gid == null || gid.length != LOCAL_GID.length()) {
            throw new IllegalArgumentException(name + " must be 16 bytes");
        }
        return gid.clone();
    }

    /** {@return a copy of the local GID} */
    @Override
    public byte[] localGid() {
        return localGid.clone();
    }

    /** {@return a copy of the remote GID} */
    @Override
    public byte[] remoteGid() {
        return remoteGid.clone();
    }

    void encode(byte[] buf, int base) {
        LOCAL_LID.put(buf, base, localLid);
        REMOTE_LID.put(buf, base, remoteLid);
        LOCAL_GID.putBytes(buf, base, localGid);
        REMOTE_GID.putBytes(buf, base, remoteGid);
        FLOW_LABEL.put(buf, base, flowLabel);
        PACKET_RATE.put(buf, base, packetRate);
        TRAFFIC_CLASS.put(buf, base, trafficClass);
        HOP_LIMIT.put(buf, base, hopLimit);
        SL.put(buf, base, sl);
        SUBNET_LOCAL.put(buf, base, subnetLocal);
        LOCAL_ACK_TIMEOUT.put(buf, base, localAckTimeout);
    }

    static CmPath decode(byte[] buf, int base) {
        return new CmPath(LOCAL_LID.getInt(buf, base), REMOTE_LID.getInt(buf, base), LOCAL_GID.getBytes(buf, base),
                REMOTE_GID.getBytes(buf, base), FLOW_LABEL.getInt(buf, base), PACKET_RATE.getInt(buf, base),
                TRAFFIC_CLASS.getInt(buf, base), HOP_LIMIT.getInt(buf, base), SL.getInt(buf, base),
                SUBNET_LOCAL.getFlag(buf, base), LOCAL_ACK_TIMEOUT.getInt(buf, base));
    }

    @Override
    public boolean equals(Object other) {
        return RecordValues.equal(this, other);
    }

    @Override
    public int hashCode() {
        return RecordValues.hash(this);
    }

    @Override
    public String toString() {
        return RecordValues.text(this);
    }
}
