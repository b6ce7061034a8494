package org.roce4j.wire.mad;

/**
 * MRA, the MessageReceiptAck (IBTA Vol. 1 §12.6.6, table 107; Linux {@code CM_MRA_*}): "your
 * message arrived, my answer will take longer", so the sender stops retrying for a while.
 *
 * @param localCommId    the sender's communication ID
 * @param remoteCommId   the receiver's communication ID (for a REQ, the REQ's local one)
 * @param messageMraed   which message is acknowledged: {@link #MRAED_REQ}, {@link #MRAED_REP}, {@link #MRAED_LAP}
 * @param serviceTimeout 5-bit exponent: how long the answer may take (4.096 µs × 2^value)
 * @param privateData    up to {@link #PRIVATE_DATA_LENGTH} bytes
 */
public record MessageReceiptAck(int localCommId, int remoteCommId, int messageMraed, int serviceTimeout,
                                byte[] privateData) implements CmMessage {

    /** IBTA table 107: 222 bytes of private data. */
    public static final int PRIVATE_DATA_LENGTH = 222;
    /** IBTA table 107 (Linux {@code CM_MSG_RESPONSE_REQ}): the REQ is acknowledged. */
    public static final int MRAED_REQ = 0;
    /** The REP is acknowledged. */
    public static final int MRAED_REP = 1;
    /** The LAP is acknowledged. */
    public static final int MRAED_LAP = 2;

    // IBTA table 107, CM_MRA_* of ibta_vol1_c12.h.
    private static final Field LOCAL_COMM_ID = Field.at(0, 32);
    private static final Field REMOTE_COMM_ID = Field.at(4, 32);
    private static final Field MESSAGE_MRAED = Field.at(8, 2);
    private static final Field SERVICE_TIMEOUT = Field.at(9, 5);
    private static final Field PRIVATE_DATA = Field.bytes(10, PRIVATE_DATA_LENGTH);

    public MessageReceiptAck {
        MESSAGE_MRAED.check("message MRAed", messageMraed);
        SERVICE_TIMEOUT.check("service timeout", serviceTimeout);
        privateData = PRIVATE_DATA.checkBytes("private data", privateData);
    }

    @Override
    public CmAttribute attribute() {
        return CmAttribute.MRA;
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
        MESSAGE_MRAED.put(buf, off, messageMraed);
        SERVICE_TIMEOUT.put(buf, off, serviceTimeout);
        PRIVATE_DATA.putBytes(buf, off, privateData);
    }

    static MessageReceiptAck decode(byte[] buf, int off) {
        return new MessageReceiptAck(LOCAL_COMM_ID.getInt(buf, off), REMOTE_COMM_ID.getInt(buf, off),
                MESSAGE_MRAED.getInt(buf, off), SERVICE_TIMEOUT.getInt(buf, off), PRIVATE_DATA.getBytes(buf, off));
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
