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
    public QpInitAttr {
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(cap, "cap");
    }

    /** A QP whose send and receive completions go to one CQ, with no SRQ and selective signaling. */
    public static QpInitAttr of(QpType type, Cq cq, QpCap cap) {
        return new QpInitAttr(type, cq, cq, null, cap, false);
    }

    public QpInitAttr withSrq(Srq sharedReceiveQueue) {
        return new QpInitAttr(type, sendCq, recvCq, sharedReceiveQueue, cap, sqSigAll);
    }

    public QpInitAttr withSqSigAll(boolean signalAll) {
        return new QpInitAttr(type, sendCq, recvCq, srq, cap, signalAll);
    }

    public QpInitAttr withCqs(Cq sendQueueCq, Cq receiveQueueCq) {
        return new QpInitAttr(type, sendQueueCq, receiveQueueCq, srq, cap, sqSigAll);
    }
}
