package org.roce4j.wire.mad;

/**
 * DREQ, the DisconnectRequest (IBTA Vol. 1 §12.6.10, table 112; Linux {@code CM_DREQ_*}).
 *
 * @param localCommId    the sender's communication ID
 * @param remoteCommId   the receiver's communication ID
 * @param remoteQpnEecn  the receiver's QPN (or EECN for RD), 24 bits
 * @param privateData    up to {@link #PRIVATE_DATA_LENGTH} bytes
 */
public record DisconnectRequest(int localCommId, int remoteCommId, int remoteQpnEecn, byte[] privateData)
        implements CmMessage {

    /** IBTA table 112: 220 bytes of private data. */
    public static final int PRIVATE_DATA_LENGTH = 220;

    // IBTA table 112, CM_DREQ_* of ibta_vol1_c12.h.
    private static final Field LOCAL_COMM_ID = Field.at(0, 32);
    private static final Field REMOTE_COMM_ID = Field.at(4, 32);
    private static final Field REMOTE_QPN_EECN = Field.at(8, 24);
    private static final Field PRIVATE_DATA = Field.bytes(12, PRIVATE_DATA_LENGTH);

    public DisconnectRequest {
        REMOTE_QPN_EECN.check("remote QPN/EECN", remoteQpnEecn);
        privateData = PRIVATE_DATA.checkBytes("private data", privateData);
    }

    @Override
    public CmAttribute attribute() {
        return CmAttribute.DREQ;
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
        REMOTE_QPN_EECN.put(buf, off, remoteQpnEecn);
        PRIVATE_DATA.putBytes(buf, off, privateData);
    }

    static DisconnectRequest decode(byte[] buf, int off) {
        return new DisconnectRequest(LOCAL_COMM_ID.getInt(buf, off), REMOTE_COMM_ID.getInt(buf, off),
                REMOTE_QPN_EECN.getInt(buf, off), PRIVATE_DATA.getBytes(buf, off));
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
