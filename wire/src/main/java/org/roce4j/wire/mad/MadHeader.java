package org.roce4j.wire.mad;

/**
 * The common MAD header (IBTA Vol. 1 §13.4.3, Linux {@code struct ib_mad_hdr}): the first 24 of a
 * MAD's 256 bytes. {@code method} is the whole byte, response bit (0x80) included, as Linux keeps
 * it. Bytes 18–19 are reserved: written as zero, ignored when read.
 *
 * @param baseVersion       MAD base version (1)
 * @param mgmtClass         management class ({@link #CLASS_CM} for the connection manager)
 * @param classVersion      version of the class ({@link #CM_CLASS_VERSION} for the CM)
 * @param method            e.g. {@link #METHOD_SEND}
 * @param status            16-bit status
 * @param classSpecific     16 class-specific bits
 * @param transactionId     the 64-bit transaction ID
 * @param attributeId       e.g. {@link CmAttribute#id()}
 * @param attributeModifier 32-bit attribute modifier
 */
public record MadHeader(int baseVersion, int mgmtClass, int classVersion, int method, int status,
                        int classSpecific, long transactionId, int attributeId, int attributeModifier) {

    /** A MAD is 256 bytes (IBTA §13.4.2), the UD payload of every MAD packet. */
    public static final int MAD_SIZE = 256;
    /** The common header's length. */
    public static final int HEADER_LENGTH = 24;
    /** The class-specific data after the header: 232 bytes. */
    public static final int DATA_LENGTH = MAD_SIZE - HEADER_LENGTH;
    /** IBTA §13.4.3: base version 1. */
    public static final int BASE_VERSION = 1;
    /** IBTA table 105 (Linux {@code IB_MGMT_CLASS_CM}): the communication management class. */
    public static final int CLASS_CM = 0x07;
    /** Linux {@code IB_CM_CLASS_VERSION}: the CM's class version, 2. */
    public static final int CM_CLASS_VERSION = 2;
    /** IBTA table 151 ({@code IB_MGMT_METHOD_SEND}): every CM message travels as a Send. */
    public static final int METHOD_SEND = 0x03;
    /** The general services interface's QP (IBTA §13.5.1): CM MADs go from QP 1 to QP 1. */
    public static final int GSI_QPN = 1;
    /** IBTA §13.5.1 ({@code IB_QP1_QKEY}): the well-known Q_Key of QP 1. */
    public static final int GSI_QKEY = 0x80010000;
    /** The default P_Key a MAD to QP 1 carries on RoCE (rxe and the captures: 0xFFFF). */
    public static final int DEFAULT_PKEY = 0xFFFF;

    // IBTA Vol. 1 figure 145 / Linux struct ib_mad_hdr.
    private static final Field BASE = Field.at(0, 8);
    private static final Field MGMT_CLASS = Field.at(1, 8);
    private static final Field CLASS_VERSION = Field.at(2, 8);
    private static final Field METHOD = Field.at(3, 8);
    private static final Field STATUS = Field.at(4, 16);
    private static final Field CLASS_SPECIFIC = Field.at(6, 16);
    private static final Field TRANSACTION_ID = Field.at(8, 64);
    private static final Field ATTRIBUTE_ID = Field.at(16, 16);
    private static final Field RESERVED = Field.at(18, 16);
    private static final Field ATTRIBUTE_MODIFIER = Field.at(20, 32);

    public MadHeader {
        BASE.check("base version", baseVersion);
        MGMT_CLASS.check("management class", mgmtClass);
        CLASS_VERSION.check("class version", classVersion);
        METHOD.check("method", method);
        STATUS.check("status", status);
        CLASS_SPECIFIC.check("class specific", classSpecific);
        ATTRIBUTE_ID.check("attribute ID", attributeId);
    }

    /**
     * {@return the header of a CM message as Linux's {@code cm_format_mad_hdr} writes it: base
     * version 1, class 0x07 version 2, method Send, status 0, attribute modifier 0}
     *
     * @param transactionId the transaction ID (a REQ's, repeated by the messages that answer it)
     * @param attribute     the message
     */
    public static MadHeader cm(long transactionId, CmAttribute attribute) {
        return new MadHeader(BASE_VERSION, CLASS_CM, CM_CLASS_VERSION, METHOD_SEND, 0, 0, transactionId,
                attribute.id(), 0);
    }

    /** Writes the 24 header bytes at {@code off}. */
    public void encode(byte[] buf, int off) {
        BASE.put(buf, off, baseVersion);
        MGMT_CLASS.put(buf, off, mgmtClass);
        CLASS_VERSION.put(buf, off, classVersion);
        METHOD.put(buf, off, method);
        STATUS.put(buf, off, status);
        CLASS_SPECIFIC.put(buf, off, classSpecific);
        TRANSACTION_ID.put(buf, off, transactionId);
        ATTRIBUTE_ID.put(buf, off, attributeId);
        RESERVED.put(buf, off, 0);
        ATTRIBUTE_MODIFIER.put(buf, off, attributeModifier);
    }

    /** Reads the 24 header bytes at {@code off} (every bit pattern is a header; the caller checks the length). */
    public static MadHeader decode(byte[] buf, int off) {
        return new MadHeader(BASE.getInt(buf, off), MGMT_CLASS.getInt(buf, off), CLASS_VERSION.getInt(buf, off),
                METHOD.getInt(buf, off), STATUS.getInt(buf, off), CLASS_SPECIFIC.getInt(buf, off),
                TRANSACTION_ID.get(buf, off), ATTRIBUTE_ID.getInt(buf, off), ATTRIBUTE_MODIFIER.getInt(buf, off));
    }
}
