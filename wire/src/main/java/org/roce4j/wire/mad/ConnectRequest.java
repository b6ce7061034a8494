package org.roce4j.wire.mad;

/**
 * REQ, the ConnectRequest (IBTA Vol. 1 §12.6.5, table 106; Linux {@code CM_REQ_*} in
 * {@code ibta_vol1_c12.h}). Numbers keep their wire width: QPNs, EECNs and the PSN 24 bits, the
 * timeouts 5-bit exponents (4.096 µs × 2^value), the path MTU IBTA's code (1 = 256 … 5 = 4096).
 *
 * @param localCommId             the sender's communication ID
 * @param serviceId               the service ID the REQ asks for (see {@link ServiceId})
 * @param localCaGuid             the sender's CA GUID
 * @param localQkey               Q_Key (RD only; 0 otherwise)
 * @param localQpn                the sender's QPN
 * @param responderResources      RDMA READs / atomics the sender takes as a responder
 * @param localEecn               local EECN (RD)
 * @param initiatorDepth          RDMA READs / atomics the sender issues at once
 * @param remoteEecn              remote EECN (RD)
 * @param remoteCmResponseTimeout how long the sender waits for the reply, as an exponent
 * @param transportServiceType    0 RC, 1 UC, 2 RD, 3 extended ({@link #extendedTransportType})
 * @param endToEndFlowControl     the sender's receive queue does end-to-end flow control
 * @param startingPsn             the sender's first PSN
 * @param localCmResponseTimeout  how long the sender takes to answer, as an exponent
 * @param retryCount              transport retries on timeout (3 bits)
 * @param pkey                    the partition key
 * @param pathMtu                 path MTU code
 * @param rdcExists               an RD channel exists (RD)
 * @param rnrRetryCount           RNR NAK retries (3 bits, 7 = forever)
 * @param maxCmRetries            CM retries before giving up (4 bits)
 * @param srq                     the sender's QP uses an SRQ
 * @param extendedTransportType   3-bit extended transport (1 = XRC)
 * @param primaryPath             the primary path
 * @param alternatePath           the alternate path ({@link CmPath#NONE} if none)
 * @param privateData             up to {@link #PRIVATE_DATA_LENGTH} bytes (rdma_cm's header first, see {@link CmaHeader})
 */
public record ConnectRequest(int localCommId, long serviceId, long localCaGuid, int localQkey, int localQpn,
                             int responderResources, int localEecn, int initiatorDepth, int remoteEecn,
                             int remoteCmResponseTimeout, int transportServiceType, boolean endToEndFlowControl,
                             int startingPsn, int localCmResponseTimeout, int retryCount, int pkey, int pathMtu,
                             boolean rdcExists, int rnrRetryCount, int maxCmRetries, boolean srq,
                             int extendedTransportType, CmPath primaryPath, CmPath alternatePath,
                             byte[] privateData) implements CmMessage {

    /** IBTA table 106: 92 bytes of private data. */
    public static final int PRIVATE_DATA_LENGTH = 92;

    // IBTA table 106; byte offsets in the MAD's data area, as CM_REQ_* of ibta_vol1_c12.h.
    private static final Field LOCAL_COMM_ID = Field.at(0, 32);
    private static final Field SERVICE_ID = Field.at(8, 64);
    private static final Field LOCAL_CA_GUID = Field.at(16, 64);
    private static final Field LOCAL_Q_KEY = Field.at(28, 32);
    private static final Field LOCAL_QPN = Field.at(32, 24);
    private static final Field RESPONDER_RESOURCES = Field.at(35, 8);
    private static final Field LOCAL_EECN = Field.at(36, 24);
    private static final Field INITIATOR_DEPTH = Field.at(39, 8);
    private static final Field REMOTE_EECN = Field.at(40, 24);
    private static final Field REMOTE_CM_RESPONSE_TIMEOUT = Field.at(43, 5);
    private static final Field TRANSPORT_SERVICE_TYPE = Field.bits(43, 5, 2);
    private static final Field END_TO_END_FLOW_CONTROL = Field.bits(43, 7, 1);
    private static final Field STARTING_PSN = Field.at(44, 24);
    private static final Field LOCAL_CM_RESPONSE_TIMEOUT = Field.at(47, 5);
    private static final Field RETRY_COUNT = Field.bits(47, 5, 3);
    private static final Field PARTITION_KEY = Field.at(48, 16);
    private static final Field PATH_MTU = Field.at(50, 4);
    private static final Field RDC_EXISTS = Field.bits(50, 4, 1);
    private static final Field RNR_RETRY_COUNT = Field.bits(50, 5, 3);
    private static final Field MAX_CM_RETRIES = Field.at(51, 4);
    private static final Field SRQ = Field.bits(51, 4, 1);
    private static final Field EXTENDED_TRANSPORT_TYPE = Field.bits(51, 5, 3);
    private static final int PRIMARY_PATH = 52;
    private static final int ALTERNATE_PATH = 96;
    private static final Field PRIVATE_DATA = Field.bytes(140, PRIVATE_DATA_LENGTH);

    public ConnectRequest {
        LOCAL_QPN.check("local QPN", localQpn);
        RESPONDER_RESOURCES.check("responder resources", responderResources);
        LOCAL_EECN.check("local EECN", localEecn);
        INITIATOR_DEPTH.check("initiator depth", initiatorDepth);
        REMOTE_EECN.check("remote EECN", remoteEecn);
        REMOTE_CM_RESPONSE_TIMEOUT.check("remote CM response timeout", remoteCmResponseTimeout);
        TRANSPORT_SERVICE_TYPE.check("transport service type", transportServiceType);
        STARTING_PSN.check("starting PSN", startingPsn);
        LOCAL_CM_RESPONSE_TIMEOUT.check("local CM response timeout", localCmResponseTimeout);
        RETRY_COUNT.check("retry count", retryCount);
        PARTITION_KEY.check("P_Key", pkey);
        PATH_MTU.check("path MTU", pathMtu);
        RNR_RETRY_COUNT.check("RNR retry count", rnrRetryCount);
        MAX_CM_RETRIES.check("max CM retries", maxCmRetries);
        EXTENDED_TRANSPORT_TYPE.check("extended transport type", extendedTransportType);
        if (primaryPath == null || alternatePath == null) {
            throw new IllegalArgumentException("both paths are required (CmPath.NONE for no alternate)");
        }
        privateData = PRIVATE_DATA.checkBytes("private data", privateData);
    }

    @Override
    public CmAttribute attribute() {
        return CmAttribute.REQ;
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
        SERVICE_ID.put(buf, off, serviceId);
        LOCAL_CA_GUID.put(buf, off, localCaGuid);
        LOCAL_Q_KEY.put(buf, off, localQkey);
        LOCAL_QPN.put(buf, off, localQpn);
        RESPONDER_RESOURCES.put(buf, off, responderResources);
        LOCAL_EECN.put(buf, off, localEecn);
        INITIATOR_DEPTH.put(buf, off, initiatorDepth);
        REMOTE_EECN.put(buf, off, remoteEecn);
        REMOTE_CM_RESPONSE_TIMEOUT.put(buf, off, remoteCmResponseTimeout);
        TRANSPORT_SERVICE_TYPE.put(buf, off, transportServiceType);
        END_TO_END_FLOW_CONTROL.put(buf, off, endToEndFlowControl);
        STARTING_PSN.put(buf, off, startingPsn);
        LOCAL_CM_RESPONSE_TIMEOUT.put(buf, off, localCmResponseTimeout);
        RETRY_COUNT.put(buf, off, retryCount);
        PARTITION_KEY.put(buf, off, pkey);
        PATH_MTU.put(buf, off, pathMtu);
        RDC_EXISTS.put(buf, off, rdcExists);
        RNR_RETRY_COUNT.put(buf, off, rnrRetryCount);
        MAX_CM_RETRIES.put(buf, off, maxCmRetries);
        SRQ.put(buf, off, srq);
        EXTENDED_TRANSPORT_TYPE.put(buf, off, extendedTransportType);
        primaryPath.encode(buf, off + PRIMARY_PATH);
        alternatePath.encode(buf, off + ALTERNATE_PATH);
        PRIVATE_DATA.putBytes(buf, off, privateData);
    }

    static ConnectRequest decode(byte[] buf, int off) {
        return new ConnectRequest(LOCAL_COMM_ID.getInt(buf, off), SERVICE_ID.get(buf, off),
                LOCAL_CA_GUID.get(buf, off), LOCAL_Q_KEY.getInt(buf, off), LOCAL_QPN.getInt(buf, off),
                RESPONDER_RESOURCES.getInt(buf, off), LOCAL_EECN.getInt(buf, off), INITIATOR_DEPTH.getInt(buf, off),
                REMOTE_EECN.getInt(buf, off), REMOTE_CM_RESPONSE_TIMEOUT.getInt(buf, off),
                TRANSPORT_SERVICE_TYPE.getInt(buf, off), END_TO_END_FLOW_CONTROL.getFlag(buf, off),
                STARTING_PSN.getInt(buf, off), LOCAL_CM_RESPONSE_TIMEOUT.getInt(buf, off),
                RETRY_COUNT.getInt(buf, off), PARTITION_KEY.getInt(buf, off), PATH_MTU.getInt(buf, off),
                RDC_EXISTS.getFlag(buf, off), RNR_RETRY_COUNT.getInt(buf, off), MAX_CM_RETRIES.getInt(buf, off),
                SRQ.getFlag(buf, off), EXTENDED_TRANSPORT_TYPE.getInt(buf, off),
                CmPath.decode(buf, off + PRIMARY_PATH), CmPath.decode(buf, off + ALTERNATE_PATH),
                PRIVATE_DATA.getBytes(buf, off));
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
