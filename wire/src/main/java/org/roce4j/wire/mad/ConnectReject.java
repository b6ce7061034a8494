package org.roce4j.wire.mad;

import java.util.Optional;

/**
 * REJ, the ConnectReject (IBTA Vol. 1 §12.6.7, table 108; Linux {@code CM_REJ_*}). The reason is
 * kept as its 16-bit number so a reason this code does not name still decodes and re-encodes;
 * {@link #knownReason()} names it.
 *
 * @param localCommId        the sender's communication ID (0 if it never made one, as for a REQ nobody listens for)
 * @param remoteCommId       the receiver's communication ID
 * @param messageRejected    {@link #REJECTED_REQ}, {@link #REJECTED_REP} or {@link #REJECTED_OTHER}
 * @param rejectedInfoLength how many bytes of the ARI mean something (7 bits)
 * @param reason             the reject reason's number (IBTA table 109, {@link RejectReason})
 * @param ari                additional reject information, up to {@link #ARI_LENGTH} bytes
 * @param privateData        up to {@link #PRIVATE_DATA_LENGTH} bytes
 */
public record ConnectReject(int localCommId, int remoteCommId, int messageRejected, int rejectedInfoLength,
                            int reason, byte[] ari, byte[] privateData) implements CmMessage {

    /** IBTA table 108: 148 bytes of private data. */
    public static final int PRIVATE_DATA_LENGTH = 148;
    /** IBTA table 108: 72 bytes of additional reject information. */
    public static final int ARI_LENGTH = 72;
    /** IBTA table 108 (Linux {@code CM_MSG_RESPONSE_REQ}): the REQ is rejected. */
    public static final int REJECTED_REQ = 0;
    /** The REP is rejected. */
    public static final int REJECTED_REP = 1;
    /** No message is rejected (a connection is refused after it was accepted, or an unknown message). */
    public static final int REJECTED_OTHER = 2;

    // IBTA table 108, CM_REJ_* of ibta_vol1_c12.h.
    private static final Field LOCAL_COMM_ID = Field.at(0, 32);
    private static final Field REMOTE_COMM_ID = Field.at(4, 32);
    private static final Field MESSAGE_REJECTED = Field.at(8, 2);
    private static final Field REJECTED_INFO_LENGTH = Field.at(9, 7);
    private static final Field REASON = Field.at(10, 16);
    private static final Field ARI = Field.bytes(12, ARI_LENGTH);
    private static final Field PRIVATE_DATA = Field.bytes(84, PRIVATE_DATA_LENGTH);

    public ConnectReject {
        MESSAGE_REJECTED.check("message rejected", messageRejected);
        REJECTED_INFO_LENGTH.check("rejected info length", rejectedInfoLength);
        REASON.check("reason", reason);
        ari = ARI.checkBytes("ARI", ari);
        privateData = PRIVATE_DATA.checkBytes("private data", privateData);
    }

    /**
     * A REJ with no ARI, as rdma_cm's {@code rdma_reject} and ib_cm's answer to a REQ nobody
     * listens for send it.
     *
     * @param localCommId     the sender's communication ID
     * @param remoteCommId    the receiver's communication ID
     * @param messageRejected which message is rejected
     * @param reason          why
     * @param privateData     up to {@link #PRIVATE_DATA_LENGTH} bytes
     */
    public ConnectReject(int localCommId, int remoteCommId, int messageRejected, RejectReason reason,
                         byte[] privateData) {
        this(localCommId, remoteCommId, messageRejected, 0, reason.code(), new byte[0], privateData);
    }

    /** {@return the reason as IBTA names it, or empty for a number table 109 leaves reserved} */
    public Optional<RejectReason> knownReason() {
        return RejectReason.of(reason);
    }

    @Override
    public CmAttribute attribute() {
        return CmAttribute.REJ;
    }

    /** {@return a copy of the additional reject information} */
    @Override
    public byte[] ari() {
        return ari.clone();
    }

    /** {@return a copy of the private data} */
    @Override
    public byte[] privateData() {
        return privateData.clone();
    }

    @Override
    public void encode(byte[] buf, int off) {
        CmMad.zeroData(buf, off);
        LOCAL_COMM_ID.put(buf, off, localCommId);
        REMOTE_COMM_ID.put(buf, off, remoteCommId);
        MESSAGE_REJECTED.put(buf, off, messageRejected);
        REJECTED_INFO_LENGTH.put(buf, off, rejectedInfoLength);
        REASON.put(buf, off, reason);
        ARI.putBytes(buf, off, ari);
        PRIVATE_DATA.putBytes(buf, off, privateData);
    }

    static ConnectReject decode(byte[] buf, int off) {
        return new ConnectReject(LOCAL_COMM_ID.getInt(buf, off), REMOTE_COMM_ID.getInt(buf, off),
                MESSAGE_REJECTED.getInt(buf, off), REJECTED_INFO_LENGTH.getInt(buf, off), REASON.getInt(buf, off),
                ARI.getBytes(buf, off), PRIVATE_DATA.getBytes(buf, off));
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
