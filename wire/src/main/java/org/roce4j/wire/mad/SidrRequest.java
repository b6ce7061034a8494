package org.roce4j.wire.mad;

/**
 * SIDR_REQ, the ServiceIDResolutionRequest (IBTA Vol. 1 §12.11.1, table 119; Linux
 * {@code CM_SIDR_REQ_*}): "which UD QP and Q_Key serve this service ID?" rdma_cm sends it for the
 * UDP port space, its IP header first in the private data.
 *
 * @param requestId   the sender's request ID (the reply repeats it)
 * @param pkey        the partition key
 * @param serviceId   the service ID asked for
 * @param privateData up to {@link #PRIVATE_DATA_LENGTH} bytes
 */
public record SidrRequest(int requestId, int pkey, long serviceId, byte[] privateData) implements CmMessage {

    /** IBTA table 119: 216 bytes of private data. */
    public static final int PRIVATE_DATA_LENGTH = 216;

    // IBTA table 119, CM_SIDR_REQ_* of ibta_vol1_c12.h.
    private static final Field REQUEST_ID = Field.at(0, 32);
    private static final Field PARTITION_KEY = Field.at(4, 16);
    private static final Field SERVICE_ID = Field.at(8, 64);
    private static final Field PRIVATE_DATA = Field.bytes(16, PRIVATE_DATA_LENGTH);

    public SidrRequest {
        PARTITION_KEY.check("P_Key", pkey);
        privateData = PRIVATE_DATA.checkBytes("private data", privateData);
    }

    @Override
    public CmAttribute attribute() {
        return CmAttribute.SIDR_REQ;
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
        PARTITION_KEY.put(buf, off, pkey);
        SERVICE_ID.put(buf, off, serviceId);
        PRIVATE_DATA.putBytes(buf, off, privateData);
    }

    static SidrRequest decode(byte[] buf, int off) {
        return new SidrRequest(REQUEST_ID.getInt(buf, off), PARTITION_KEY.getInt(buf, off), SERVICE_ID.get(buf, off),
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
