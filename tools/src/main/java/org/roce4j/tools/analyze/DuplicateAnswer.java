package org.roce4j.tools.analyze;

/** How a responder answered a duplicate request (IBTA 9.7.5.1.1 / rxe_resp.c duplicate_request). */
public enum DuplicateAnswer {
    /** SEND or WRITE: acknowledged again, nothing executed. */
    RE_ACK,
    /** READ: the response is generated again from memory. */
    READ_RE_EXECUTED,
    /** Atomic: the original value is sent again from the responder's cache (same value as before). */
    ATOMIC_REPLAYED,
    /** A duplicate whose answer the capture does not show (lost, or the capture ended). */
    UNANSWERED
}
