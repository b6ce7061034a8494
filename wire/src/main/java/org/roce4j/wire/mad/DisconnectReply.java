package org.roce4j.wire.mad;

/**
 * DREP, the DisconnectReply (IBTA Vol. 1 §12.6.11, table 113; Linux {@code CM_DREP_*}).
 *
 * @param localCommId  the sender's communication ID
 * @param remoteCommId the DREQ sender's communication ID
 * @param privateData  up to {@link #PRIVATE_DATA_LENGTH} bytes
 */
public record DisconnectReply(int localCommId, int remoteCommId, byte[] privateData) implements CmMessage {

    /** IBTA table 113: 224 bytes of private data. */
    public static final int PRIVATE_DATA_LENGTH = 224;

    // IBTA table 113, CM_DREP_* of ibta_vol1_c12.h.
    private static final Field LOCAL_COMM_ID = Field.at(0, 32);
    private static final Field REMOTE_COMM_ID = Field.at(4, 32);
    private static final Field PRIVATE_DATA = Field.bytes(8, PRIVATE_DATA_LENGTH);

    public DisconnectReply {
        privateData = PRIVATE_DATA.checkBytes("private data", privateData);
    }

    @Override
    public CmAttribute attribute() {
        return CmAttribute.DREP;
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
        PRIVATE_DATA.putBytes(buf, off, privateData);
    }

    static DisconnectReply decode(byte[] buf, int off) {
        return new DisconnectReply(LOCAL_COMM_ID.getInt(buf, off), REMOTE_COMM_ID.getInt(buf, off),
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
