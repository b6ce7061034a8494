package org.roce4j.verbs;

/** The status of a work completion: {@code enum ibv_wc_status}, same names, same order, same values. */
public enum WcStatus {
    /** {@code IBV_WC_SUCCESS}: the work request completed. */
    SUCCESS("success"),
    /** {@code IBV_WC_LOC_LEN_ERR}: a local length error, e.g. a message longer than the receive buffer. */
    LOC_LEN_ERR("local length error"),
    /** {@code IBV_WC_LOC_QP_OP_ERR}: a local QP consistency error. */
    LOC_QP_OP_ERR("local QP operation error"),
    /** {@code IBV_WC_LOC_EEC_OP_ERR}: a local EE context error (RD only). */
    LOC_EEC_OP_ERR("local EE context operation error"),
    /** {@code IBV_WC_LOC_PROT_ERR}: a local protection error: an SGE outside its region, a wrong lkey or PD. */
    LOC_PROT_ERR("local protection error"),
    /** {@code IBV_WC_WR_FLUSH_ERR}: flushed because the QP went to ERR before the request was done. */
    WR_FLUSH_ERR("Work Request Flushed Error"),
    /** {@code IBV_WC_MW_BIND_ERR}: a memory window bind failed. */
    MW_BIND_ERR("memory management operation error"),
    /** {@code IBV_WC_BAD_RESP_ERR}: the responder answered with an unexpected transport opcode. */
    BAD_RESP_ERR("bad response error"),
    /** {@code IBV_WC_LOC_ACCESS_ERR}: a local access error, e.g. a READ into a region without LOCAL_WRITE. */
    LOC_ACCESS_ERR("local access error"),
    /** {@code IBV_WC_REM_INV_REQ_ERR}: the responder found the request invalid (NAK invalid request). */
    REM_INV_REQ_ERR("remote invalid request error"),
    /** {@code IBV_WC_REM_ACCESS_ERR}: the responder refused the access: rkey, rights, bounds (NAK remote access error). */
    REM_ACCESS_ERR("remote access error"),
    /** {@code IBV_WC_REM_OP_ERR}: the responder could not complete the operation (NAK remote operational error). */
    REM_OP_ERR("remote operation error"),
    /** {@code IBV_WC_RETRY_EXC_ERR}: no progress after retry_cnt retries (ACK timeouts, sequence NAKs). */
    RETRY_EXC_ERR("transport retry counter exceeded"),
    /** {@code IBV_WC_RNR_RETRY_EXC_ERR}: the responder had no receive posted after rnr_retry retries. */
    RNR_RETRY_EXC_ERR("RNR retry counter exceeded"),
    /** {@code IBV_WC_LOC_RDD_VIOL_ERR}: a local RDD violation (RD only). */
    LOC_RDD_VIOL_ERR("local RDD violation error"),
    /** {@code IBV_WC_REM_INV_RD_REQ_ERR}: an invalid RD request at the responder (RD only). */
    REM_INV_RD_REQ_ERR("remote invalid RD request"),
    /** {@code IBV_WC_REM_ABORT_ERR}: the responder aborted the operation. */
    REM_ABORT_ERR("aborted error"),
    /** {@code IBV_WC_INV_EECN_ERR}: an invalid EE context number (RD only). */
    INV_EECN_ERR("invalid EE context number"),
    /** {@code IBV_WC_INV_EEC_STATE_ERR}: an invalid EE context state (RD only). */
    INV_EEC_STATE_ERR("invalid EE context state"),
    /** {@code IBV_WC_FATAL_ERR}: a fatal device error. */
    FATAL_ERR("fatal error"),
    /** {@code IBV_WC_RESP_TIMEOUT_ERR}: the response timed out. */
    RESP_TIMEOUT_ERR("response timeout error"),
    /** {@code IBV_WC_GENERAL_ERR}: an error with no better status. */
    GENERAL_ERR("general error"),
    /** {@code IBV_WC_TM_ERR}: a tag matching error. */
    TM_ERR("TM error"),
    /** {@code IBV_WC_TM_RNDV_INCOMPLETE}: a tag matching rendezvous left to software. */
    TM_RNDV_INCOMPLETE("TM software rendezvous");

    private final String description;

    WcStatus(String description) {
        this.description = description;
    }

    /** {@return the numeric value of {@code IBV_WC_*}} */
    public int value() {
        return ordinal();
    }

    /** {@return what {@code ibv_wc_status_str()} prints for this status} */
    public String describe() {
        return description;
    }

    /** {@return whether this is {@link #SUCCESS}} */
    public boolean isSuccess() {
        return this == SUCCESS;
    }

    /**
     * {@return the constant for an {@code IBV_WC_*} value}
     *
     * @param value the numeric status
     * @throws IllegalArgumentException if there is no such status
     */
    public static WcStatus of(int value) {
        WcStatus[] all = values();
        if (value < 0 || value >= all.length) {
            throw new IllegalArgumentException("no ibv_wc_status " + value);
        }
        return all[value];
    }
}
