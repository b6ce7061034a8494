package org.roce4j.verbs;

import java.util.Objects;

/**
 * What {@link Pd#createQp} needs: {@code struct ibv_qp_init_attr}.
 *
 * @param type      RC, UC or UD
 * @param sendCq    completion queue of the send queue
 * @param recvCq    completion queue of the receive queue
 * @param srq       shared receive queue, or null for a receive queue of its own
 * @param cap       requested queue sizes
 * @param sqSigAll  true: every send WR generates a completion, as if posted with SIGNALED
 */
public record QpInitAttr(QpType type, Cq sendCq, Cq recvCq, Srq srq, QpCap cap, boolean sqSigAll) {
    /** Requires a type and capacities (NullPointerException). */
    public QpInitAttr {
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(cap, "cap");
    }

    /**
     * {@return a QP whose send and receive completions go to one CQ, with no SRQ and selective signaling}
     *
     * @param type RC, UC or UD
     * @param cq   the CQ of both queues
     * @param cap  the queue sizes
     */
    public static QpInitAttr of(QpType type, Cq cq, QpCap cap) {
        return new QpInitAttr(type, cq, cq, null, cap, false);
    }

    /**
     * {@return these attributes with receives taken from a shared receive queue}
     *
     * @param sharedReceiveQueue the SRQ
     */
    public QpInitAttr withSrq(Srq sharedReceiveQueue) {
        return new QpInitAttr(type, sendCq, recvCq, sharedReceiveQueue, cap, sqSigAll);
    }

    /**
     * {@return these attributes with {@code sq_sig_all} set or cleared}
     *
     * @param signalAll true: every send work request completes, as if SIGNALED
     */
    public QpInitAttr withSqSigAll(boolean signalAll) {
        return new QpInitAttr(type, sendCq, recvCq, srq, cap, signalAll);
    }

    /**
     * {@return these attributes with separate CQs for the two queues}
     *
     * @param sendQueueCq    the CQ of the send queue
     * @param receiveQueueCq the CQ of the receive queue
     */
    public QpInitAttr withCqs(Cq sendQueueCq, Cq receiveQueueCq) {
        return new QpInitAttr(type, sendQueueCq, receiveQueueCq, srq, cap, sqSigAll);
    }
}
