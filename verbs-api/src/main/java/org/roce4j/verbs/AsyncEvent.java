package org.roce4j.verbs;

/**
 * An asynchronous event: {@code struct ibv_async_event}. Exactly one of the element fields is
 * set, as the event type says (a CQ for CQ_ERR, a QP for QP_* events, an SRQ for SRQ_*, a port for
 * PORT_*).
 */
public record AsyncEvent(AsyncEventType type, Cq cq, Qp qp, Srq srq, int portNum) {
    public static AsyncEvent of(AsyncEventType type, Cq cq) {
        return new AsyncEvent(type, cq, null, null, 0);
    }

    public static AsyncEvent of(AsyncEventType type, Qp qp) {
        return new AsyncEvent(type, null, qp, null, 0);
    }

    public static AsyncEvent of(AsyncEventType type, Srq srq) {
        return new AsyncEvent(type, null, null, srq, 0);
    }

    public static AsyncEvent ofPort(AsyncEventType type, int portNum) {
        return new AsyncEvent(type, null, null, null, portNum);
    }
}
