package org.roce4j.wire.mad;

/**
 * What {@link CmMad#decode} makes of a UD payload: a CM message with its header, or why it is not
 * one the CM can take. Decoding never throws on bad bytes.
 */
public sealed interface DecodedCmMad {

    /**
     * A CM MAD.
     *
     * @param header  the MAD header
     * @param message the message the attribute ID names
     */
    record Decoded(MadHeader header, CmMessage message) implements DecodedCmMad {
    }

    /**
     * Not a CM MAD the CM handles.
     *
     * @param reason why
     * @param detail the value that made it so, for logs
     */
    record NotCm(Reason reason, String detail) implements DecodedCmMad {
    }

    /** Why a payload is not a CM MAD the CM takes. */
    enum Reason {
        /** A MAD is exactly 256 bytes (IBTA §13.4.2); the payload is shorter or longer, or the range is outside the buffer. */
        WRONG_LENGTH,
        /** Base version other than 1. */
        UNSUPPORTED_BASE_VERSION,
        /** Management class other than the CM's 0x07 (another class's MAD on QP 1). */
        NOT_CM_CLASS,
        /** Class version other than 2, which Linux's CM agent registers for. */
        UNSUPPORTED_CLASS_VERSION,
        /** Method other than Send: ib_cm registers for {@code IB_MGMT_METHOD_SEND} only (cm.c {@code cm_add_one}). */
        UNSUPPORTED_METHOD,
        /** An attribute ID the CM does not define. */
        UNKNOWN_ATTRIBUTE,
        /** A CM attribute with no message here: ClassPortInfo, LAP, APR (Linux's ib_cm no longer handles LAP/APR either). */
        UNSUPPORTED_ATTRIBUTE
    }
}
