package org.roce4j.verbs;

/** The status of a work completion: {@code enum ibv_wc_status}, same names, same order, same values. */
public enum WcStatus {
    SUCCESS("success"),
    LOC_LEN_ERR("local length error"),
    LOC_QP_OP_ERR("local QP operation error"),
    LOC_EEC_OP_ERR("local EE context operation error"),
    LOC_PROT_ERR("local protection error"),
    WR_FLUSH_ERR("Work Request Flushed Error"),
    MW_BIND_ERR("memory management operation error"),
    BAD_RESP_ERR("bad response error"),
    LOC_ACCESS_ERR("local access error"),
    REM_INV_REQ_ERR("remote invalid request error"),
    REM_ACCESS_ERR("remote access error"),
    REM_OP_ERR("remote operation error"),
    RETRY_EXC_ERR("transport retry counter exceeded"),
    RNR_RETRY_EXC_ERR("RNR retry counter exceeded"),
    LOC_RDD_VIOL_ERR("local RDD violation error"),
    REM_INV_RD_REQ_ERR("remote invalid RD request"),
    REM_ABORT_ERR("aborted error"),
    INV_EECN_ERR("invalid EE context number"),
    INV_EEC_STATE_ERR("invalid EE context state"),
    FATAL_ERR("fatal error"),
    RESP_TIMEOUT_ERR("response timeout error"),
    GENERAL_ERR("general error"),
    TM_ERR("TM error"),
    TM_RNDV_INCOMPLETE("TM software rendezvous");

    private final String description;

    WcStatus(String description) {
        this.description = description;
    }

    /** The numeric value of {@code IBV_WC_*}. */
    public int value() {
        return ordinal();
    }

    /** What {@code ibv_wc_status_str()} prints for this status. */
    public String describe() {
        return description;
    }

    public boolean isSuccess() {
        return this == SUCCESS;
    }

    /** The constant for an {@code IBV_WC_*} value. */
    public static WcStatus of(int value) {
        WcStatus[] all = values();
        if (value < 0 || value >= all.length) {
            throw new IllegalArgumentException("no ibv_wc_status " + value);
        }
        return all[value];
    }
}
