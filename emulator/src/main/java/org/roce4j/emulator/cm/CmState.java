package org.roce4j.emulator.cm;

/**
 * The states of one connection in the communication manager: Linux's {@code enum ib_cm_state}
 * (include/rdma/ib_cm.h), which names IBTA Vol. 1 12.9's state diagram (figures 147–150).
 */
enum CmState {
    IDLE,
    /** Active side: the REQ is out, its retries running. */
    REQ_SENT,
    /** Passive side: a REQ arrived and was handed to the listener. */
    REQ_RCVD,
    /** Passive side: the consumer has not answered yet; an MRA is prepared and goes out on a duplicate REQ. */
    MRA_REQ_SENT,
    /** Active side: the peer's MRA stretched the REQ's timeout. */
    MRA_REQ_RCVD,
    /** Passive side: the REP is out, its retries running. */
    REP_SENT,
    /** Active side: a REP arrived; the consumer sends the RTU (or a REJ). */
    REP_RCVD,
    /** Passive side: the peer's MRA stretched the REP's timeout. */
    MRA_REP_RCVD,
    ESTABLISHED,
    /** The DREQ is out, its retries running. */
    DREQ_SENT,
    /** A DREQ arrived; the consumer's disconnect sends the DREP. */
    DREQ_RCVD,
    /** After the connection: the QP may still get stray packets; duplicates are answered (cm_enter_timewait). */
    TIMEWAIT,
    /** UD: the SIDR_REQ is out. */
    SIDR_REQ_SENT,
    /** UD: a SIDR_REQ arrived and was handed to the listener. */
    SIDR_REQ_RCVD
}
