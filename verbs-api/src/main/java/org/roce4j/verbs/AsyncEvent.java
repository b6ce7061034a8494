package org.roce4j.verbs;

/**
 * An asynchronous event: {@code struct ibv_async_event}. Exactly one of the element fields is
 * set, as the event type says (a CQ for CQ_ERR, a QP for QP_* events, an SRQ for SRQ_*, a port for
 * PORT_*).
 *
 * @param type    what happened ({@code event_type})
 * @param cq      the CQ of CQ_ERR, else null
 * @param qp      the QP of QP_* events, else null
 * @param srq     the SRQ of SRQ_* events, else null
 * @param portNum the port of PORT_* events, else 0
 */
public record AsyncEvent(AsyncEventType type, Cq cq, Qp qp, Srq srq, int portNum) {
    /**
     * {@return an event of a CQ}
     *
     * @param type the event type
     * @param cq   the CQ
     */
    public static AsyncEvent of(AsyncEventType type, Cq cq) {
        return new AsyncEvent(type, cq, null, null, 0);
    }

    /**
     * {@return an event of a QP}
     *
     * @param type the event type
     * @param qp   the QP
     */
    public static AsyncEvent of(AsyncEventType type, Qp qp) {
        return new AsyncEvent(type, null, qp, null, 0);
    }

    /**
     * {@return an event of an SRQ}
     *
     * @param type the event type
     * @param srq  the SRQ
     */
    public static AsyncEvent of(AsyncEventType type, Srq srq) {
        return new AsyncEvent(type, null, null, srq, 0);
    }

    /**
     * {@return an event of a port}
     *
     * @param type    the event type
     * @param portNum the port, from 1
     */
    public static AsyncEvent ofPort(AsyncEventType type, int portNum) {
        return new AsyncEvent(type, null, null, null, portNum);
    }
}
