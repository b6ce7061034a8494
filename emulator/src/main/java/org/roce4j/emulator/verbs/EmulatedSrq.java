package org.roce4j.emulator.verbs;

import org.roce4j.emulator.node.Rnic;
import org.roce4j.emulator.transport.ReceiveCursor;
import org.roce4j.emulator.transport.ReceiveQueue;
import java.util.List;
import java.util.Objects;
import java.util.Set;

import org.roce4j.verbs.AsyncEvent;
import org.roce4j.verbs.AsyncEventType;
import org.roce4j.verbs.BadWorkRequestException;
import org.roce4j.verbs.Errno;
import org.roce4j.verbs.Pd;
import org.roce4j.verbs.RecvWr;
import org.roce4j.verbs.Srq;
import org.roce4j.verbs.SrqAttr;
import org.roce4j.verbs.SrqAttrMask;
import org.roce4j.verbs.SrqInitAttr;

/**
 * A shared receive queue. The limit (IBTA 10.2.9.2, rxe {@code get_srq_wqe}): once armed with a
 * non-zero limit, the first time a responder takes a WQE and fewer than the limit remain, the
 * context gets {@link AsyncEventType#SRQ_LIMIT_REACHED} and the limit is disarmed (reset to 0).
 */
public final class EmulatedSrq extends Resource implements Srq {
    final EmulatedPd pd;
    ReceiveQueue queue;
    private int limit;
    /** QPs that take their receive WQEs from here. */
    int users;

    private EmulatedSrq(Rnic rnic, EmulatedPd pd, int maxWr, int maxSge, int limit) {
        super(rnic);
        this.pd = pd;
        this.queue = new ReceiveQueue(QueueDepths.granted(rnic.model, maxWr), maxSge);
        this.limit = limit;
    }

    static EmulatedSrq create(Rnic rnic, EmulatedPd pd, SrqInitAttr attr) {
        DeviceLimits limits = rnic.model.limits();
        if (attr.maxWr() < 1 || attr.maxWr() > limits.maxSrqWr()) {
            throw invalid("ibv_create_srq", "max_wr " + attr.maxWr() + " is outside 1.." + limits.maxSrqWr());
        }
        if (attr.maxSge() < 1 || attr.maxSge() > limits.maxSrqSge()) {
            throw invalid("ibv_create_srq", "max_sge " + attr.maxSge() + " is outside 1.." + limits.maxSrqSge());
        }
        if (attr.srqLimit() < 0 || attr.srqLimit() > attr.maxWr()) {
            throw invalid("ibv_create_srq", "srq_limit " + attr.srqLimit() + " is above max_wr " + attr.maxWr());
        }
        pd.srqs++;
        return new EmulatedSrq(rnic, pd, attr.maxWr(), attr.maxSge(), attr.srqLimit());
    }

    @Override
    String kind() {
        return "shared receive queue";
    }

    @Override
    public Pd pd() {
        return pd;
    }

    /** The responder takes a WQE; raises the limit event when the count drops below an armed limit. */
    public boolean take(ReceiveCursor cursor) {
        if (!queue.take(cursor)) {
            return false;
        }
        if (limit > 0 && queue.count() < limit) {
            limit = 0;
            pd.context.raise(AsyncEvent.of(AsyncEventType.SRQ_LIMIT_REACHED, this));
        }
        return true;
    }

    @Override
    public void postRecv(RecvWr wr) {
        Objects.requireNonNull(wr, "wr");
        rnic.run(EmulatedSrq::postFirst, this, wr); // a static reference: no allocation per post
    }

    private static void postFirst(EmulatedSrq srq, RecvWr wr) {
        srq.postOne(wr, 0);
    }

    @Override
    public void postRecv(List<RecvWr> wrs) {
        Objects.requireNonNull(wrs, "wrs");
        rnic.run(() -> {
            for (int i = 0; i < wrs.size(); i++) {
                postOne(wrs.get(i), i);
            }
        });
    }

    private void postOne(RecvWr wr, int index) {
        if (closed) {
            throw new BadWorkRequestException(Errno.EINVAL, index, wr.wrId(), "ibv_post_srq_recv: the SRQ was closed");
        }
        if (wr.sgList().count() > queue.maxSge) {
            throw new BadWorkRequestException(Errno.EINVAL, index, wr.wrId(),
                    wr.sgList().count() + " SGEs, the SRQ takes " + queue.maxSge);
        }
        if (queue.isFull()) {
            throw new BadWorkRequestException(Errno.ENOMEM, index, wr.wrId(),
                    "the SRQ is full (" + queue.capacity + " WQEs)");
        }
        queue.post(wr);
    }

    @Override
    public void modify(SrqAttr attr, Set<SrqAttrMask> mask) {
        Objects.requireNonNull(attr, "attr");
        Objects.requireNonNull(mask, "mask");
        rnic.run(() -> {
            checkOpen("ibv_modify_srq");
            // rxe_srq.c rxe_srq_chk_attr: everything is checked before anything changes
            int resizedTo = mask.contains(SrqAttrMask.MAX_WR) ? checkResize(attr.maxWr()) : 0;
            if (mask.contains(SrqAttrMask.LIMIT) && attr.srqLimit() > queue.capacity) {
                // against the depth before a resize in the same call (rxe: srq->rq.queue->buf->index_mask)
                throw invalid("ibv_modify_srq", "limit " + attr.srqLimit() + " is above max_wr " + queue.capacity);
            }
            if (resizedTo > 0) {
                queue = queue.resizedTo(resizedTo);
            }
            if (mask.contains(SrqAttrMask.LIMIT)) {
                limit = attr.srqLimit();
            }
        });
    }

    /** The depth a resize to {@code maxWr} gives, or EINVAL (rxe_srq_chk_attr, rxe_queue.c resize_finish). */
    private int checkResize(int maxWr) {
        int maxSrqWr = rnic.model.limits().maxSrqWr();
        if (maxWr < 1 || maxWr > maxSrqWr) {
            throw invalid("ibv_modify_srq", "max_wr " + maxWr + " is outside 1.." + maxSrqWr);
        }
        if (limit > 0 && maxWr < limit) {
            throw invalid("ibv_modify_srq", "max_wr " + maxWr + " is below the armed limit " + limit);
        }
        int granted = QueueDepths.granted(rnic.model, maxWr);
        if (granted < queue.count()) {
            throw invalid("ibv_modify_srq", "max_wr " + maxWr + " cannot hold the " + queue.count() + " WQEs posted");
        }
        return granted;
    }

    @Override
    public SrqAttr query() {
        return rnic.call(() -> {
            checkOpen("ibv_query_srq");
            return new SrqAttr(queue.capacity, queue.maxSge, limit);
        });
    }

    @Override
    public void close() {
        rnic.run(() -> {
            if (closed) {
                return;
            }
            checkNoChildren("ibv_destroy_srq", users, "queue pairs using it");
            closed = true;
            pd.srqs--;
        });
    }
}
