package org.roce4j.wire.mad;

import java.util.Optional;

/**
 * SIDR_REP, the ServiceIDResolutionResponse (IBTA Vol. 1 §12.11.2, table 120; Linux
 * {@code CM_SIDR_REP_*}). The status is kept as its number so an unnamed one still decodes;
 * {@link #knownStatus()} names it. The 72 bytes at 24 are the ClassPortInfo of a redirect (IBTA),
 * what Linux calls the additional information.
 *
 * @param requestId            the SIDR_REQ's request ID
 * @param status               IBTA table 121's status ({@link SidrStatus})
 * @param additionalInfoLength how many bytes of {@code classPortInfo} mean something
 * @param qpn                  the QPN that serves the service ID
 * @param serviceId            the service ID resolved
 * @param qkey                 the Q_Key to send to the QP with
 * @param classPortInfo        up to {@link #CLASS_PORT_INFO_LENGTH} bytes
 * @param privateData          up to {@link #PRIVATE_DATA_LENGTH} bytes
 */
public record SidrReply(int requestId, int status, int additionalInfoLength, int qpn, long serviceId, int qkey,
                        byte[] classPortInfo, byte[] privateData) implements CmMessage {

    /** IBTA table 120: 136 bytes of private data. */
    public static final int PRIVATE_DATA_LENGTH = 136;
    /** IBTA table 120: 72 bytes of ClassPortInfo. */
    public static final int CLASS_PORT_INFO_LENGTH = 72;

    // IBTA table 120, CM_SIDR_REP_* of ibta_vol1_c12.h.
    private static final Field REQUEST_ID = Field.at(0, 32);
    private static final Field STATUS = Field.at(4, 8);
    private static final Field ADDITIONAL_INFORMATION_LENGTH = Field.at(5, 8);
    private static final Field QPN = Field.at(8, 24);
    private static final Field SERVICE_ID = Field.at(12, 64);
    private static final Field Q_KEY = Field.at(20, 32);
    private static final Field CLASS_PORT_INFO = Field.bytes(24, CLASS_PORT_INFO_LENGTH);
    private static final Field PRIVATE_DATA = Field.bytes(96, PRIVATE_DATA_LENGTH);

    public SidrReply {
        STATUS.check("status", status);
        ADDITIONAL_INFORMATION_LENGTH.check("additional information length", additionalInfoLength);
        QPN.check("QPN", qpn);
        classPortInfo = CLASS_PORT_INFO.checkBytes("ClassPortInfo", classPortInfo);
        privateData = PRIVATE_DATA.checkBytes("private data", privateData);
    }

    /**
     * A SIDR_REP without ClassPortInfo, as rdma_cm's accept and reject of a UD id send it.
     *
     * @param requestId   the SIDR_REQ's request ID
     * @param status      the outcome
     * @param qpn         the QPN that serves the service ID
     * @param serviceId   the service ID resolved
     * @param qkey        the Q_Key
     * @param privateData up to {@link #PRIVATE_DATA_LENGTH} bytes
     */
    public SidrReply(int requestId, SidrStatus status, int qpn, long serviceId, int qkey, byte[] privateData) {
        this(requestId, status.code(), 0, qpn, serviceId, qkey, new byte[0], privateData);
    }

    /** {@return the status as IBTA names it, or empty for a number table 121 leaves reserved} */
    public Optional<SidrStatus> knownStatus() {
        return SidrStatus.of(status);
    }

    @Override
    public CmAttribute attribute() {
        return CmAttribute.SIDR_REP;
    }

    /** {@return a copy of the ClassPortInfo bytes} */
    @Override
    public byte[] classPortInfo() {
        return classPortInfo.clone();
    }

    /** {@return a copy of the private data} */
    @Override
    public byte[] privateData() {
        return privateData.clone();
    }

    @Override
    public void encode(byte[] buf, int off) {
        CmMad.zeroData(buf, off);
        REQUEST_ID.put(buf, off, requestId);
        STATUS.put(buf, off, status);
        ADDITIONAL_INFORMATION_LENGTH.put(buf, off, additionalInfoLength);
        QPN.put(buf, off, qpn);
        SERVICE_ID.put(buf, off, serviceId);
        Q_KEY.put(buf, off, qkey);
        CLASS_PORT_INFO.putBytes(buf, off, classPortInfo);
        PRIVATE_DATA.putBytes(buf, off, privateData);
    }

    static SidrReply decode(byte[] buf, int off) {
        return new SidrReply(REQUEST_ID.getInt(buf, off), STATUS.getInt(buf, off),
                ADDITIONAL_INFORMATION_LENGTH.getInt(buf, off), QPN.getInt(buf, off), SERVICE_ID.get(buf, off),
                Q_KEY.getInt(buf, off), CLASS_PORT_INFO.getBytes(buf, off), PRIVATE_DATA.getBytes(buf, off));
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
