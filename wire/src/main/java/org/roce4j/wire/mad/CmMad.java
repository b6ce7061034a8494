package org.roce4j.wire.mad;

import java.util.Arrays;
import java.util.Optional;

/**
 * A whole CM MAD, the 256-byte payload of a UD SEND from QP 1 to QP 1 ({@link MadHeader#GSI_QKEY}):
 * the common header, then the message.
 */
public final class CmMad {

    private CmMad() {
    }

    /**
     * Writes {@link MadHeader#MAD_SIZE} bytes at {@code off}: the header, then the message.
     *
     * @param header  the MAD header; its attribute ID must be the message's
     * @param message the message
     * @param buf     the buffer
     * @param off     where the MAD starts
     * @return the bytes written, 256
     * @throws IllegalArgumentException if the header names another attribute than the message's
     */
    public static int encode(MadHeader header, CmMessage message, byte[] buf, int off) {
        if (header.attributeId() != message.attribute().id()) {
            throw new IllegalArgumentException(String.format("header attribute 0x%04x is not %s's 0x%04x",
                    header.attributeId(), message.attribute(), message.attribute().id()));
        }
        header.encode(buf, off);
        message.encode(buf, off + MadHeader.HEADER_LENGTH);
        return MadHeader.MAD_SIZE;
    }

    /**
     * {@return the CM message in {@code len} bytes at {@code off}, or why they are not one}
     * Checks in the order Linux's MAD layer and ib_cm do: length, base version, class, class
     * version, method, attribute. Never throws.
     *
     * @param buf the buffer
     * @param off where the UD payload starts
     * @param len the UD payload's length
     */
    public static DecodedCmMad decode(byte[] buf, int off, int len) {
        if (buf == null || off < 0 || len != MadHeader.MAD_SIZE || off > buf.length - len) {
            return notCm(DecodedCmMad.Reason.WRONG_LENGTH, "payload of " + len + " bytes at " + off
                    + (buf == null ? " of no buffer" : " of " + buf.length));
        }
        MadHeader header = MadHeader.decode(buf, off);
        if (header.baseVersion() != MadHeader.BASE_VERSION) {
            return notCm(DecodedCmMad.Reason.UNSUPPORTED_BASE_VERSION, "base version " + header.baseVersion());
        }
        if (header.mgmtClass() != MadHeader.CLASS_CM) {
            return notCm(DecodedCmMad.Reason.NOT_CM_CLASS, String.format("class 0x%02x", header.mgmtClass()));
        }
        if (header.classVersion() != MadHeader.CM_CLASS_VERSION) {
            return notCm(DecodedCmMad.Reason.UNSUPPORTED_CLASS_VERSION, "class version " + header.classVersion());
        }
        if (header.method() != MadHeader.METHOD_SEND) {
            return notCm(DecodedCmMad.Reason.UNSUPPORTED_METHOD, String.format("method 0x%02x", header.method()));
        }
        Optional<CmAttribute> attribute = CmAttribute.of(header.attributeId());
        if (attribute.isEmpty()) {
            return notCm(DecodedCmMad.Reason.UNKNOWN_ATTRIBUTE, String.format("attribute 0x%04x", header.attributeId()));
        }
        int data = off + MadHeader.HEADER_LENGTH;
        CmMessage message = switch (attribute.get()) {
            case REQ -> ConnectRequest.decode(buf, data);
            case MRA -> MessageReceiptAck.decode(buf, data);
            case REJ -> ConnectReject.decode(buf, data);
            case REP -> ConnectReply.decode(buf, data);
            case RTU -> ReadyToUse.decode(buf, data);
            case DREQ -> DisconnectRequest.decode(buf, data);
            case DREP -> DisconnectReply.decode(buf, data);
            case SIDR_REQ -> SidrRequest.decode(buf, data);
            case SIDR_REP -> SidrReply.decode(buf, data);
            case CLASS_PORT_INFO, LAP, APR -> null;
        };
        if (message == null) {
            return notCm(DecodedCmMad.Reason.UNSUPPORTED_ATTRIBUTE, attribute.get().name());
        }
        return new DecodedCmMad.Decoded(header, message);
    }

    private static DecodedCmMad notCm(DecodedCmMad.Reason reason, String detail) {
        return new DecodedCmMad.NotCm(reason, detail);
    }

    /** Clears a data area before a message writes its fields, so reserved bits go out as zero. */
    static void zeroData(byte[] buf, int off) {
        Arrays.fill(buf, off, off + MadHeader.DATA_LENGTH, (byte) 0);
    }
}
