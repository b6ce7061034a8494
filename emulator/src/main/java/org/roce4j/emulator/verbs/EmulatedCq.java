package org.roce4j.emulator.verbs;

import org.roce4j.emulator.Quirk;
import org.roce4j.emulator.RnicCounter;
import org.roce4j.emulator.node.Rnic;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.locks.ReentrantLock;

import org.roce4j.verbs.AsyncEvent;
import org.roce4j.verbs.AsyncEventType;
import org.roce4j.verbs.CompChannel;
import org.roce4j.verbs.Context;
import org.roce4j.verbs.CqEx;
import org.roce4j.verbs.CreateCqWcFlag;
import org.roce4j.verbs.Errno;
import org.roce4j.verbs.VerbsException;
import org.roce4j.verbs.WcOpcode;
import org.roce4j.verbs.WcStatus;
import org.roce4j.verbs.WorkCompletion;

/**
 * A completion queue: a ring of completions in the order the work completed.
 *
 * <p>Overrun (IBTA 11.4.2.1, rxe {@code rxe_cq_post}): a completion that does not fit puts the CQ in
 * error, raises {@link AsyncEventType#CQ_ERR} once, and the QP that produced it goes to the error
 * state (rxe: responder class G error). From then on {@link #poll} throws EINVAL, as
 * {@code ibv_poll_cq} returns a negative value on hardware that detects the overrun.
 *
 * <p>Locks: the RNIC adds completions under the fabric lock; pollers take them under {@link #pollLock}
 * alone ({@link CompletionRing}). A poller never waits for the fabric lock while it holds the poll lock,
 * and {@link #resize}, the one call that needs both, takes the fabric lock first: one order, no deadlock.
 */
public final class EmulatedCq extends Resource implements CqEx {
    private static final int NOT_ARMED = 0;
    private static final int ARMED_NEXT = 1;
    private static final int ARMED_SOLICITED = 2;

    final EmulatedContext context;
    private final EmulatedCompChannel channel;
    private final CompletionRing ring;
    /** Held while completions are taken out of {@link #ring}: pollers of one CQ take turns (rxe: the CQ's lock). */
    private final ReentrantLock pollLock = new ReentrantLock();
    /** The fields asked for at ibv_create_cq_ex (none for ibv_create_cq). */
    private final Set<CreateCqWcFlag> wcFlags;
    /**
     * Whether completions carry the time they were made: only when asked for, since on a threaded
     * fabric reading the clock was 7% of the event loop's time (bench/RESULTS.md, issue 17).
     */
    private final boolean stamped;
    /** ibv_start_poll … ibv_end_poll: the index (0: the oldest pending) of the current completion, -1 when not polling. */
    private int pollCursor = -1;
    private WorkCompletion current;
    private long currentMade;
    /**
     * Set once the CQ is closed or overran, so that a poll looks under the fabric lock and throws
     * ({@link Resource#closed} and {@link #overrun} are the fabric lock's to read).
     */
    private volatile boolean unusable;
    private boolean overrun;
    private int armed = NOT_ARMED;
    /** Events handed out by {@code getCqEvent} and not yet acknowledged. */
    int unackedEvents;
    /** QPs whose send or receive queue completes here. */
    int users;

    EmulatedCq(Rnic rnic, EmulatedContext context, int capacity, EmulatedCompChannel channel,
               Set<CreateCqWcFlag> wcFlags) {
        super(rnic);
        this.context = context;
        this.channel = channel;
        this.ring = new CompletionRing(capacity);
        this.wcFlags = wcFlags;
        this.stamped = wcFlags.contains(CreateCqWcFlag.COMPLETION_TIMESTAMP);
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
        if (!ring.offer(completion, stamped ? rnic.clock.nanoTime() : 0)) {
            context.raise(AsyncEvent.of(AsyncEventType.CQ_ERR, this));
            if (!rnic.model.has(Quirk.POLL_AFTER_CQ_OVERRUN_SUCCEEDS)) {
                overrun = true; // from now on poll is EINVAL
                unusable = true;
            } // else rxe_cq.c rxe_cq_post: -EBUSY for this completion only; the ring stays as it is
            return false;
        }
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
        return cq.ring.capacity();
    }

    @Override
    public CompChannel channel() {
        return channel;
    }

    @Override
    public int poll(WorkCompletion[] completions) {
        Objects.requireNonNull(completions, "completions");
        rnic.drive();
        if (unusable) {
            return rnic.callAsInt(EmulatedCq::refuseLocked, this, "ibv_poll_cq");
        }
        if (ring.isEmpty() && !rnic.isDeterministic()) {
            // Nothing to take. A link whose receive is polled reads its sockets now, on this thread;
            // otherwise the threads that would fill the CQ (the link's event loop, the fabric loop) need
            // a CPU that a busy poller holds: yield it, as the kernel's softirq would preempt the poller
            // for rxe.
            if (rnic.pollLink() < 0) {
                Thread.yield();
                return 0;
            }
            if (ring.isEmpty()) {
                return 0;
            }
        }
        pollLock.lock();
        try {
            return ring.take(completions); // no allocation per poll
        } finally {
            pollLock.unlock();
        }
    }

    /** A closed CQ is EINVAL, as an overrun one: both throw. */
    private static int refuseLocked(EmulatedCq cq, String verb) {
        cq.checkOpen(verb);
        if (cq.overrun) {
            throw new VerbsException(Errno.EINVAL, verb + ": the CQ overran and is in error (CQ_ERR)");
        }
        throw new IllegalStateException(verb + ": unusable, yet neither closed nor overrun");
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
        cq.pollLock.lock(); // after the fabric lock, the one order (see the class comment)
        try {
            int held = cq.ring.pending();
            if (cqe < held) {
                throw invalid("ibv_resize_cq", "cqe " + cqe + " is below the " + held + " completions the CQ holds");
            }
            cq.ring.resize(QueueDepths.granted(cq.rnic.model, cqe));
            return cq.ring.capacity();
        } finally {
            cq.pollLock.unlock();
        }
    }

    // ---- ibv_cq_ex: start/next/end poll and the read calls ----------------------------------

    @Override
    public Set<CreateCqWcFlag> wcFlags() {
        return wcFlags;
    }

    @Override
    public int startPoll() {
        rnic.drive();
        if (ring.isEmpty() && !rnic.isDeterministic()) {
            rnic.pollLink(); // as poll: a link whose receive is polled reads its sockets now
        }
        if (pollCursor >= 0) {
            throw invalid("ibv_start_poll", "a poll is under way: ibv_end_poll first");
        }
        if (unusable) {
            return rnic.callAsInt(EmulatedCq::refuseLocked, this, "ibv_start_poll");
        }
        pollLock.lock();
        try {
            if (ring.isEmpty()) {
                return Errno.ENOENT.number(); // no ibv_end_poll follows (rxe.c cq_start_poll released its lock)
            }
            pollAt(0);
            return 0;
        } finally {
            pollLock.unlock();
        }
    }

    @Override
    public int nextPoll() {
        requirePolling("ibv_next_poll");
        pollLock.lock();
        try {
            if (pollCursor + 1 >= ring.pending()) {
                return Errno.ENOENT.number();
            }
            pollAt(pollCursor + 1);
            return 0;
        } finally {
            pollLock.unlock();
        }
    }

    private void pollAt(int cursor) {
        pollCursor = cursor;
        current = ring.peek(cursor);
        currentMade = ring.madeAt(cursor);
    }

    /** The completions read, the current one included, are consumed (libibverbs: ibv_end_poll). */
    @Override
    public void endPoll() {
        requirePolling("ibv_end_poll");
        pollLock.lock();
        try {
            ring.discard(pollCursor + 1);
            pollCursor = -1;
            current = null;
        } finally {
            pollLock.unlock();
        }
    }

    @Override
    public long wrId() {
        return polled("wr_id").wrId();
    }

    @Override
    public WcStatus status() {
        return polled("status").status();
    }

    @Override
    public WcOpcode readOpcode() {
        return polled("ibv_wc_read_opcode").opcode();
    }

    @Override
    public int readVendorErr() {
        return polled("ibv_wc_read_vendor_err").vendorErr();
    }

    @Override
    public int readWcFlags() {
        return polled("ibv_wc_read_wc_flags").wcFlags();
    }

    @Override
    public int readByteLen() {
        return polled("ibv_wc_read_byte_len", CreateCqWcFlag.BYTE_LEN).byteLen();
    }

    @Override
    public int readImmData() {
        return polled("ibv_wc_read_imm_data", CreateCqWcFlag.IMM).immData();
    }

    @Override
    public int readQpNum() {
        return polled("ibv_wc_read_qp_num", CreateCqWcFlag.QP_NUM).qpNum();
    }

    @Override
    public int readSrcQp() {
        return polled("ibv_wc_read_src_qp", CreateCqWcFlag.SRC_QP).srcQp();
    }

    @Override
    public int readSlid() {
        return polled("ibv_wc_read_slid", CreateCqWcFlag.SLID).slid();
    }

    @Override
    public int readSl() {
        return polled("ibv_wc_read_sl", CreateCqWcFlag.SL).sl();
    }

    @Override
    public int readDlidPathBits() {
        return polled("ibv_wc_read_dlid_path_bits", CreateCqWcFlag.DLID_PATH_BITS).dlidPathBits();
    }

    /** The fabric's clock when the completion was made, in ns: virtual time on a deterministic fabric. */
    @Override
    public long readCompletionTs() {
        polled("ibv_wc_read_completion_ts", CreateCqWcFlag.COMPLETION_TIMESTAMP);
        return currentMade;
    }

    private WorkCompletion polled(String verb, CreateCqWcFlag field) {
        if (!wcFlags.contains(field)) {
            // rxe.c rxe_create_cq_ex sets read_byte_len and the others only when asked: a NULL pointer in C.
            throw new VerbsException(Errno.EOPNOTSUPP, verb + ": the CQ was not created with IBV_WC_EX_WITH_" + field);
        }
        return polled(verb);
    }

    private WorkCompletion polled(String verb) {
        requirePolling(verb);
        return current;
    }

    private void requirePolling(String verb) {
        if (pollCursor < 0) {
            throw invalid(verb, "outside ibv_start_poll ... ibv_end_poll");
        }
    }

    /** Completions waiting to be polled (for tests of internals). */
    public int size() {
        return ring.pending();
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
            unusable = true;
            context.cqs--;
            if (channel != null) {
                channel.forget(this);
            }
        });
    }

    @Override
    public String toString() {
        return "Cq[" + ring.pending() + "/" + ring.capacity() + (overrun ? ", overrun" : "") + "]";
    }
}
