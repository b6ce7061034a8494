package org.roce4j.emulator.verbs;

import org.roce4j.emulator.Quirk;
import org.roce4j.emulator.RnicCounter;
import org.roce4j.emulator.node.Rnic;
import java.util.Objects;

import org.roce4j.verbs.AsyncEvent;
import org.roce4j.verbs.AsyncEventType;
import org.roce4j.verbs.CompChannel;
import org.roce4j.verbs.Context;
import org.roce4j.verbs.Cq;
import org.roce4j.verbs.Errno;
import org.roce4j.verbs.VerbsException;
import org.roce4j.verbs.WorkCompletion;

/**
 * A completion queue: a ring of completions in the order the work completed.
 *
 * <p>Overrun (IBTA 11.4.2.1, rxe {@code rxe_cq_post}): a completion that does not fit puts the CQ in
 * error, raises {@link AsyncEventType#CQ_ERR} once, and the QP that produced it goes to the error
 * state (rxe: responder class G error). From then on {@link #poll} throws EINVAL, as
 * {@code ibv_poll_cq} returns a negative value on hardware that detects the overrun.
 */
public final class EmulatedCq extends Resource implements Cq {
    private static final int NOT_ARMED = 0;
    private static final int ARMED_NEXT = 1;
    private static final int ARMED_SOLICITED = 2;

    final EmulatedContext context;
    private final EmulatedCompChannel channel;
    private WorkCompletion[] ring;
    private int head;
    private int count;
    /**
     * {@link #count}, published for {@link #poll}'s look without the lock: a busy poller on an empty
     * CQ (ibv_rc_pingpong without events) must not keep taking the fabric lock the receive path needs.
     * -1 once the CQ is closed or overran, so that poll takes the locked path and throws.
     */
    private volatile int published;
    private boolean overrun;
    private int armed = NOT_ARMED;
    /** Events handed out by {@code getCqEvent} and not yet acknowledged. */
    int unackedEvents;
    /** QPs whose send or receive queue completes here. */
    int users;

    EmulatedCq(Rnic rnic, EmulatedContext context, int capacity, EmulatedCompChannel channel) {
        super(rnic);
        this.context = context;
        this.channel = channel;
        this.ring = new WorkCompletion[capacity];
    }

    @Override
    String kind() {
        return "completion queue";
    }

    /**
     * Adds a completion (under the fabric lock). {@code solicited}: a receive of a message with the
     * SE bit, which wakes a CQ armed for solicited completions only; so does any error completion
     * (IBTA 11.4.2.2).
     *
     * @return false when the CQ overran: the completion is lost and the caller's QP must go to error
     */
    boolean add(WorkCompletion completion, boolean solicited) {
        if (closed || overrun) {
            return false;
        }
        if (count == ring.length) {
            context.raise(AsyncEvent.of(AsyncEventType.CQ_ERR, this));
            if (!rnic.model.has(Quirk.POLL_AFTER_CQ_OVERRUN_SUCCEEDS)) {
                overrun = true; // from now on poll is EINVAL
                published = -1;
            } // else rxe_cq.c rxe_cq_post: -EBUSY for this completion only; the ring stays as it is
            return false;
        }
        ring[(head + count) % ring.length] = completion;
        count++;
        published = count;
        rnic.count(RnicCounter.COMPLETIONS);
        if (armed == ARMED_NEXT || armed == ARMED_SOLICITED && (solicited || !completion.isSuccess())) {
            armed = NOT_ARMED;
            channel.deliver(this);
        }
        return true;
    }

    @Override
    public Context context() {
        return context;
    }

    @Override
    public int capacity() {
        return rnic.callAsInt(EmulatedCq::depthLocked, this, null); // the ring changes at a resize
    }

    private static int depthLocked(EmulatedCq cq, Object unused) {
        return cq.ring.length;
    }

    @Override
    public CompChannel channel() {
        return channel;
    }

    @Override
    public int poll(WorkCompletion[] completions) {
        Objects.requireNonNull(completions, "completions");
        rnic.drive();
        if (published == 0 && !rnic.isDeterministic()) {
            // Nothing to take (a closed or overrun CQ publishes -1 and throws under the lock). The
            // threads that would fill the CQ (the link's event loop, the fabric loop) need a CPU that
            // a busy poller holds: yield it, as the kernel's softirq would preempt the poller for rxe.
            Thread.yield();
            return 0;
        }
        return rnic.callAsInt(EmulatedCq::pollLocked, this, completions); // no allocation per poll
    }

    private static int pollLocked(EmulatedCq cq, WorkCompletion[] completions) {
        return cq.take(completions);
    }

    private int take(WorkCompletion[] completions) {
        checkOpen("ibv_poll_cq");
        if (overrun) {
            throw new VerbsException(Errno.EINVAL, "ibv_poll_cq: the CQ overran and is in error (CQ_ERR)");
        }
        int n = Math.min(count, completions.length);
        for (int i = 0; i < n; i++) {
            completions[i] = ring[head];
            ring[head] = null;
            head = head + 1 == ring.length ? 0 : head + 1;
        }
        count -= n;
        published = count;
        return n;
    }

    @Override
    public int resize(int cqe) {
        return rnic.callAsInt(EmulatedCq::resizeLocked, this, cqe);
    }

    private static int resizeLocked(EmulatedCq cq, int cqe) {
        cq.checkOpen("ibv_resize_cq");
        int maxCqe = cq.rnic.model.limits().maxCqe();
        // rxe_cq.c rxe_cq_chk_attr: cqe < 1, cqe > max_cqe, and cqe below the completions held are EINVAL
        // (the check compares what was asked, before rounding: 6 held, 5 asked is EINVAL on rxe though 7 fit)
        if (cqe < 1 || cqe > maxCqe) {
            throw invalid("ibv_resize_cq", "cqe " + cqe + " is outside 1.." + maxCqe);
        }
        if (cqe < cq.count) {
            throw invalid("ibv_resize_cq", "cqe " + cqe + " is below the " + cq.count + " completions the CQ holds");
        }
        // rxe_queue.c resize_finish: the completions held move to the new ring, oldest first
        WorkCompletion[] resized = new WorkCompletion[QueueDepths.granted(cq.rnic.model, cqe)];
        for (int i = 0; i < cq.count; i++) {
            resized[i] = cq.ring[(cq.head + i) % cq.ring.length];
        }
        cq.ring = resized;
        cq.head = 0;
        return resized.length;
    }

    /** Completions waiting to be polled (for tests of internals). */
    public int size() {
        return count;
    }

    @Override
    public void reqNotify(boolean solicitedOnly) {
        rnic.run(() -> {
            checkOpen("ibv_req_notify_cq");
            if (channel == null) {
                throw invalid("ibv_req_notify_cq", "the CQ has no completion channel");
            }
            // Arming for every completion covers the solicited ones too; never weaken an arm.
            if (!solicitedOnly) {
                armed = ARMED_NEXT;
            } else if (armed == NOT_ARMED) {
                armed = ARMED_SOLICITED;
            }
        });
    }

    @Override
    public void close() {
        rnic.run(() -> {
            if (closed) {
                return;
            }
            checkNoChildren("ibv_destroy_cq", users, "queue pairs using it");
            checkNoChildren("ibv_destroy_cq", unackedEvents, "completion events unacknowledged");
            closed = true;
            published = -1;
            context.cqs--;
            if (channel != null) {
                channel.forget(this);
            }
        });
    }

    @Override
    public String toString() {
        return "Cq[" + count + "/" + ring.length + (overrun ? ", overrun" : "") + "]";
    }
}
