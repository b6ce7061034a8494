package org.roce4j.verbs.spi;

import java.util.List;
import java.util.Objects;
import java.util.Set;

import org.roce4j.verbs.Gid;
import org.roce4j.verbs.Pd;
import org.roce4j.verbs.Qp;
import org.roce4j.verbs.QpAttr;
import org.roce4j.verbs.QpAttrMask;
import org.roce4j.verbs.QpInitAttr;
import org.roce4j.verbs.QpState;
import org.roce4j.verbs.QpType;
import org.roce4j.verbs.RecvWr;
import org.roce4j.verbs.SendWr;

/**
 * A {@link Qp} that forwards every call to another: what a provider's extended QP ({@code ibv_qp_ex}) wraps
 * around its ordinary QP, so that only the builder is its own.
 */
public abstract class ForwardingQp implements Qp {
    private final Qp qp;

    /**
     * Forwards to {@code qp}.
     *
     * @param qp the queue pair every {@link Qp} call goes to
     */
    protected ForwardingQp(Qp qp) {
        this.qp = Objects.requireNonNull(qp, "qp");
    }

    @Override
    public int qpNum() {
        return qp.qpNum();
    }

    @Override
    public QpType type() {
        return qp.type();
    }

    @Override
    public Pd pd() {
        return qp.pd();
    }

    @Override
    public QpInitAttr initAttr() {
        return qp.initAttr();
    }

    @Override
    public QpState state() {
        return qp.state();
    }

    @Override
    public void modify(QpAttr attr, Set<QpAttrMask> mask) {
        qp.modify(attr, mask);
    }

    @Override
    public QpAttr query(Set<QpAttrMask> mask) {
        return qp.query(mask);
    }

    @Override
    public void postSend(SendWr wr) {
        qp.postSend(wr);
    }

    @Override
    public void postSend(List<SendWr> wrs) {
        qp.postSend(wrs);
    }

    @Override
    public void postRecv(RecvWr wr) {
        qp.postRecv(wr);
    }

    @Override
    public void postRecv(List<RecvWr> wrs) {
        qp.postRecv(wrs);
    }

    @Override
    public void attachMcast(Gid gid, int lid) {
        qp.attachMcast(gid, lid);
    }

    @Override
    public void detachMcast(Gid gid, int lid) {
        qp.detachMcast(gid, lid);
    }

    @Override
    public void close() {
        qp.close();
    }

    @Override
    public String toString() {
        return qp.toString();
    }
}
