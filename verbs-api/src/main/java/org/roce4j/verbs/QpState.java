package org.roce4j.verbs;

/** Queue pair states of IBTA §10.3.1: {@code enum ibv_qp_state}, same order and values. */
public enum QpState {
    RESET,
    INIT,
    /** Ready to receive. */
    RTR,
    /** Ready to send. */
    RTS,
    /** Send queue drain. */
    SQD,
    /** Send queue error (UC and UD only). */
    SQE,
    ERR;

    public int value() {
        return ordinal();
    }

    public static QpState of(int value) {
        return values()[value];
    }
}
