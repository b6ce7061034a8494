package org.roce4j.wire.mad;

/**
 * REP, the ConnectReply (IBTA Vol. 1 §12.6.8, table 110; Linux {@code CM_REP_*}).
 *
 * @param localCommId         the sender's communication ID
 * @param remoteCommId        the REQ's communication ID
 * @param localQkey           Q_Key (RD only; 0 otherwise)
 * @param localQpn            the sender's QPN
 * @param localEecn           local EE context number (RD)
 * @param startingPsn         the sender's first PSN
 * @param responderResources  RDMA READs / atomics the sender takes as a responder
 * @param initiatorDepth      RDMA READs / atomics the sender issues at once
 * @param targetAckDelay      5-bit exponent: the sender's ACK delay
 * @param failoverAccepted    2 bits: 0 accepted, 1 not supported, 2 rejected
 * @param endToEndFlowControl the sender's receive queue does end-to-end flow control
 * @param rnrRetryCount       RNR NAK retries (3 bits)
 * @param srq                 the sender's QP uses an SRQ
 * @param localCaGuid         the sender's CA GUID
 * @param privateData         up to {@link #PRIVATE_DATA_LENGTH} bytes
 */
public record ConnectReply(int localCommId, int remoteCommId, int localQkey, int localQpn, int localEecn,
                           int startingPsn, int responderResources, int initiatorDepth, int targetAckDelay,
                           int failoverAccepted, boolean endToEndFlowControl, int rnrRetryCount, boolean srq,
                           long localCaGuid, byte[] privateData) implements CmMessage {

    /** IBTA table 110: 196 bytes of private data. */
    public static final int PRIVATE_DATA_LENGTH = 196;

    // IBTA table 110, CM_REP_* of ibta_vol1_c12.h.
    private static final Field LOCAL_COMM_ID = Field.at(0, 32);
    private static final Field REMOTE_COMM_ID = Field.at(4, 32);
    private static final Field LOCAL_Q_KEY = Field.at(8, 32);
    private static final Field LOCAL_QPN = Field.at(12, 24);
    private static final Field LOCAL_EE_CONTEXT_NUMBER = Field.at(16, 24);
    private static final Field STARTING_PSN = Field.at(20, 24);
    private static final Field RESPONDER_RESOURCES = Field.at(24, 8);
    private static final Field INITIATOR_DEPTH = Field.at(25, 8);
    private static final Field TARGET_ACK_DELAY = Field.at(26, 5);
    private static final Field FAILOVER_ACCEPTED = Field.bits(26, 5, 2);
    private static final Field END_TO_END_FLOW_CONTROL = Field.bits(26, 7, 1);
    private static final Field RNR_RETRY_COUNT = Field.at(27, 3);
    private static final Field SRQ = Field.bits(27, 3, 1);
    private static final Field LOCAL_CA_GUID = Field.at(28, 64);
    private static final Field PRIVATE_DATA = Field.bytes(36, PRIVATE_DATA_LENGTH);

    public ConnectReply {
        LOCAL_QPN.check("local QPN", localQpn);
        LOCAL_EE_CONTEXT_NUMBER.check("local EECN", localEecn);
        STARTING_PSN.check("starting PSN", startingPsn);
        RESPONDER_RESOURCES.check("responder resources", responderResources);
        INITIATOR_DEPTH.check("initiator depth", initiatorDepth);
        TARGET_ACK_DELAY.check("target ACK delay", targetAckDelay);
        FAILOVER_ACCEPTED.check("failover accepted", failoverAccepted);
        RNR_RETRY_COUNT.check("RNR retry count", rnrRetryCount);
        privateData = PRIVATE_DATA.checkBytes("private data", privateData);
    }

    @Override
    public CmAttribute attribute() {
        return CmAttribute.REP;
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
        LOCAL_Q_KEY.put(buf, off, localQkey);
        LOCAL_QPN.put(buf, off, localQpn);
        LOCAL_EE_CONTEXT_NUMBER.put(buf, off, localEecn);
        STARTING_PSN.put(buf, off, startingPsn);
        RESPONDER_RESOURCES.put(buf, off, responderResources);
        INITIATOR_DEPTH.put(buf, off, initiatorDepth);
        TARGET_ACK_DELAY.put(buf, off, targetAckDelay);
        FAILOVER_ACCEPTED.put(buf, off, failoverAccepted);
        END_TO_END_FLOW_CONTROL.put(buf, off, endToEndFlowControl);
        RNR_RETRY_COUNT.put(buf, off, rnrRetryCount);
        SRQ.put(buf, off, srq);
        LOCAL_CA_GUID.put(buf, off, localCaGuid);
        PRIVATE_DATA.putBytes(buf, off, privateData);
    }

    static ConnectReply decode(byte[] buf, int off) {
        return new ConnectReply(LOCAL_COMM_ID.getInt(buf, off), REMOTE_COMM_ID.getInt(buf, off),
                LOCAL_Q_KEY.getInt(buf, off), LOCAL_QPN.getInt(buf, off), LOCAL_EE_CONTEXT_NUMBER.getInt(buf, off),
                STARTING_PSN.getInt(buf, off), RESPONDER_RESOURCES.getInt(buf, off), INITIATOR_DEPTH.getInt(buf, off),
                TARGET_ACK_DELAY.getInt(buf, off), FAILOVER_ACCEPTED.getInt(buf, off),
                END_TO_END_FLOW_CONTROL.getFlag(buf, off), RNR_RETRY_COUNT.getInt(buf, off), SRQ.getFlag(buf, off),
                LOCAL_CA_GUID.get(buf, off), PRIVATE_DATA.getBytes(buf, off));
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
