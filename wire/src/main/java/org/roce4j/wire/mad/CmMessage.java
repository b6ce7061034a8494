package org.roce4j.wire.mad;

/**
 * A connection-management message (IBTA Vol. 1 §12.6 and §12.11), the class-specific data of a CM
 * MAD: one record per message, each with its field table as IBTA gives it (Linux's
 * {@code ibta_vol1_c12.h}). Numbers keep their wire width; a value wider than its field is refused
 * when the record is made. Private data (and the REJ's ARI, the SIDR_REP's ClassPortInfo) shorter
 * than its field is zero-padded when the record is made: the wire carries no length, a receiver
 * always reads the whole field, and so a record equals what decoding its bytes gives.
 */
public sealed interface CmMessage permits ConnectRequest, MessageReceiptAck, ConnectReject, ConnectReply,
        ReadyToUse, DisconnectRequest, DisconnectReply, SidrRequest, SidrReply {

    /** {@return the attribute ID the MAD header carries for this message} */
    CmAttribute attribute();

    /** {@return a copy of the message's private data, the whole field} */
    byte[] privateData();

    /**
     * Writes the {@link MadHeader#DATA_LENGTH} bytes of the MAD's data area at {@code off}, reserved
     * bits and unused private data as zeros.
     *
     * @param buf the buffer
     * @param off where the data area starts (the MAD's start + {@link MadHeader#HEADER_LENGTH})
     */
    void encode(byte[] buf, int off);
}
