package org.roce4j.emulator;

/**
 * What an emulated RNIC counts, for tests and diagnostics ({@link SoftRnic#counter}). Frames that
 * fail to parse are counted per {@link org.roce4j.wire.DropReason} ({@link SoftRnic#dropped}).
 */
public enum RnicCounter {
    FRAMES_SENT("frames transmitted"),
    FRAMES_RECEIVED("frames received, before any check"),
    DROPPED_MALFORMED("frames that did not parse as RoCEv2 or failed the ICRC"),
    DROPPED_NOT_OUR_GID("destination IP is none of this port's GIDs (rxe_chk_dgid)"),
    DROPPED_UNKNOWN_QP("destination QP does not exist"),
    DROPPED_WRONG_TRANSPORT("opcode's transport does not match the QP type, or a CNP"),
    DROPPED_BAD_PKEY("P_Key does not match the default partition"),
    DROPPED_QKEY_VIOLATION("UD Q_Key does not match the QP's (IBTA C10-15: silently dropped)"),
    DROPPED_QP_STATE("the QP's state does not accept the packet"),
    DROPPED_NO_RECEIVE_WQE("UC/UD message with no receive WQE (IBTA: silently dropped)"),
    DROPPED_UC_MESSAGE("UC packets of a message dropped after a sequence or length error"),
    DROPPED_STALE_RESPONSE("responses matching no outstanding request"),
    DUPLICATE_REQUESTS("RC requests with a PSN already seen"),
    OUT_OF_SEQUENCE_REQUESTS("RC requests with a PSN ahead of the expected one"),
    ACKS_SENT("ACK packets sent"),
    NAKS_SENT("NAK packets sent (sequence, invalid request, access, operational)"),
    RNR_NAKS_SENT("RNR NAKs sent"),
    NAKS_RECEIVED("NAKs received"),
    RNR_NAKS_RECEIVED("RNR NAKs received"),
    RETRIES("times the requester went back to resend"),
    COMPLETIONS("work completions generated");

    private final String description;

    RnicCounter(String description) {
        this.description = description;
    }

    public String description() {
        return description;
    }
}
