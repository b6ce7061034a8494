package org.roce4j.verbs;

/** Queue pair states of IBTA §10.3.1: {@code enum ibv_qp_state}, same order and values. */
public enum QpState {
    /** {@code IBV_QPS_RESET}: created, or reset; nothing is processed. */
    RESET,
    /** {@code IBV_QPS_INIT}: receives may be posted; nothing is sent or received yet. */
    INIT,
    /** {@code IBV_QPS_RTR}: ready to receive. */
    RTR,
    /** {@code IBV_QPS_RTS}: ready to send. */
    RTS,
    /** {@code IBV_QPS_SQD}: send queue drain. */
    SQD,
    /** {@code IBV_QPS_SQE}: send queue error (UC and UD only). */
    SQE,
    /** {@code IBV_QPS_ERR}: after a fatal error; outstanding work completes with WR_FLUSH_ERR. */
    ERR;

    /** {@return the {@code IBV_QPS_*} value} */
    public int value() {
        return ordinal();
    }

    /**
     * {@return the constant for an {@code IBV_QPS_*} value}
     *
     * @param value 0 to 6
     */
    public static QpState of(int value) {
        return values()[value];
    }
}
