package org.roce4j.wire.mad;

import java.util.Optional;

/**
 * Why a REJ rejects (IBTA Vol. 1 table 109), with Linux's names ({@code enum ib_cm_rej_reason}
 * in {@code include/rdma/ib_cm.h}, without the {@code IB_CM_REJ_} prefix) and IBTA's numbers.
 * rdma_cm reports the number as the REJECTED event's status.
 */
public enum RejectReason {
    NO_QP(1, "no QP available"),
    NO_EEC(2, "no EEC available"),
    NO_RESOURCES(3, "no resources available"),
    TIMEOUT(4, "timeout"),
    UNSUPPORTED(5, "unsupported request"),
    INVALID_COMM_ID(6, "invalid communication ID"),
    INVALID_COMM_INSTANCE(7, "invalid communication instance"),
    INVALID_SERVICE_ID(8, "invalid service ID"),
    INVALID_TRANSPORT_TYPE(9, "invalid transport service type"),
    STALE_CONN(10, "stale connection"),
    RDC_NOT_EXIST(11, "RDC does not exist"),
    INVALID_GID(12, "primary remote port GID rejected"),
    INVALID_LID(13, "primary remote port LID rejected"),
    INVALID_SL(14, "invalid primary SL"),
    INVALID_TRAFFIC_CLASS(15, "invalid primary traffic class"),
    INVALID_HOP_LIMIT(16, "invalid primary hop limit"),
    INVALID_PACKET_RATE(17, "invalid primary packet rate"),
    INVALID_ALT_GID(18, "alternate remote port GID rejected"),
    INVALID_ALT_LID(19, "alternate remote port LID rejected"),
    INVALID_ALT_SL(20, "invalid alternate SL"),
    INVALID_ALT_TRAFFIC_CLASS(21, "invalid alternate traffic class"),
    INVALID_ALT_HOP_LIMIT(22, "invalid alternate hop limit"),
    INVALID_ALT_PACKET_RATE(23, "invalid alternate packet rate"),
    PORT_CM_REDIRECT(24, "port and CM redirection"),
    PORT_REDIRECT(25, "port redirection"),
    INVALID_MTU(26, "invalid path MTU"),
    INSUFFICIENT_RESP_RESOURCES(27, "insufficient responder resources"),
    /** What rdma_cm's {@code rdma_reject} sends: the application said no. */
    CONSUMER_DEFINED(28, "consumer reject"),
    INVALID_RNR_RETRY(29, "invalid RNR NAK retry count"),
    DUPLICATE_LOCAL_COMM_ID(30, "duplicate local communication ID"),
    INVALID_CLASS_VERSION(31, "unsupported class version"),
    INVALID_FLOW_LABEL(32, "invalid primary flow label"),
    INVALID_ALT_FLOW_LABEL(33, "invalid alternate flow label"),
    VENDOR_OPTION_NOT_SUPPORTED(35, "vendor option not supported");

    private final int code;
    private final String description;

    RejectReason(int code, String description) {
        this.code = code;
        this.description = description;
    }

    /** {@return IBTA's number, the REJ's reason field} */
    public int code() {
        return code;
    }

    /** {@return IBTA's words for it, lower case, e.g. "invalid service ID"} */
    public String description() {
        return description;
    }

    /**
     * {@return the reason with this number, or empty for a reserved one}
     *
     * @param code the REJ's reason field
     */
    public static Optional<RejectReason> of(int code) {
        for (RejectReason reason : values()) {
            if (reason.code == code) {
                return Optional.of(reason);
            }
        }
        return Optional.empty();
    }
}
