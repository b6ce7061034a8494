package org.roce4j.emulator.node;

import java.util.Arrays;

/**
 * The QPs of one RNIC with a timer armed (the local ACK timer, an RNR retry), earliest deadline first: a
 * binary min-heap, so that the duty cycle and the fabric's "when next?" read one entry instead of every
 * armed QP — rxe arms a kernel timer per QP ({@code mod_timer(&qp->retrans_timer)}), which costs the same
 * however many QPs have one. Each QP knows its place ({@link Member#timerSlot}, -1 when not here) and
 * its deadline is kept in the heap, so ordering never touches a QP's own objects.
 *
 * <p>A QP's deadline is read when it is reported ({@link #changed}); every change must be reported, as
 * {@code Completer} does. Ties are broken by the heap's order, which depends only on the sequence of
 * reports: a deterministic fabric stays deterministic. Guarded by the fabric lock.
 */
public final class QpTimers<T extends QpTimers.Member> {
    /** What the heap orders: a QP, by the deadline it reports. */
    public interface Member {
        /** {@return the earliest armed timer's deadline, or {@link Long#MAX_VALUE} when none is armed} */
        long deadlineNanos();

        /** {@return the place {@link #placeTimer} gave, -1 when not in the heap} */
        int timerSlot();

        void placeTimer(int slot);
    }

    private Object[] qps = new Object[8];
    private long[] deadlines = new long[8];
    private int size;
    /** The QPs {@link #takeDue} took, reused from cycle to cycle: firing allocates nothing. */
    private Object[] due = new Object[8];

    /** A QP armed, moved or cleared its timer: it is placed by its new deadline, or leaves. */
    void changed(T qp) {
        long deadline = qp.deadlineNanos();
        int slot = qp.timerSlot();
        if (deadline == Long.MAX_VALUE) {
            if (slot >= 0) {
                removeAt(slot);
            }
        } else if (slot < 0) {
            if (size == qps.length) {
                qps = Arrays.copyOf(qps, size * 2);
                deadlines = Arrays.copyOf(deadlines, size * 2);
            }
            place(size++, qp, deadline);
            siftUp(size - 1);
        } else {
            long before = deadlines[slot];
            deadlines[slot] = deadline;
            if (deadline < before) {
                siftUp(slot);
            } else {
                siftDown(slot);
            }
        }
    }

    /** A QP goes away (its number is released): its timer with it. */
    void remove(T qp) {
        if (qp.timerSlot() >= 0) {
            removeAt(qp.timerSlot());
        }
    }

    /** {@return the earliest deadline, or {@link Long#MAX_VALUE} when no timer is armed} */
    long earliest() {
        return size == 0 ? Long.MAX_VALUE : deadlines[0];
    }

    int size() {
        return size;
    }

    /**
     * Takes every QP whose deadline is at or before {@code nowNanos} out of the heap, earliest first, into
     * {@link #due}; {@return how many} Taken before any fires, so that a timer re-armed by firing waits for
     * the next cycle, as each armed QP fired at most once per cycle before.
     */
    int takeDue(long nowNanos) {
        int n = 0;
        while (size > 0 && deadlines[0] <= nowNanos) {
            if (n == due.length) {
                due = Arrays.copyOf(due, n * 2);
            }
            due[n++] = qps[0];
            removeAt(0);
        }
        return n;
    }

    /** The {@code i}th QP of the last {@link #takeDue}; the slot is cleared as it is read. */
    @SuppressWarnings("unchecked")
    T due(int i) {
        T qp = (T) due[i];
        due[i] = null;
        return qp;
    }

    private void removeAt(int slot) {
        member(slot).placeTimer(-1);
        int last = --size;
        if (slot != last) {
            place(slot, member(last), deadlines[last]);
            siftDown(slot);
            siftUp(slot);
        }
        qps[last] = null;
    }

    private void siftUp(int slot) {
        Member qp = member(slot);
        long deadline = deadlines[slot];
        while (slot > 0) {
            int parent = (slot - 1) >>> 1;
            if (deadlines[parent] <= deadline) {
                break;
            }
            place(slot, member(parent), deadlines[parent]);
            slot = parent;
        }
        place(slot, qp, deadline);
    }

    private void siftDown(int slot) {
        Member qp = member(slot);
        long deadline = deadlines[slot];
        int half = size >>> 1;
        while (slot < half) {
            int child = 2 * slot + 1;
            if (child + 1 < size && deadlines[child + 1] < deadlines[child]) {
                child++;
            }
            if (deadline <= deadlines[child]) {
                break;
            }
            place(slot, member(child), deadlines[child]);
            slot = child;
        }
        place(slot, qp, deadline);
    }

    private Member member(int slot) {
        return (Member) qps[slot];
    }

    private void place(int slot, Member qp, long deadline) {
        qps[slot] = qp;
        deadlines[slot] = deadline;
        qp.placeTimer(slot);
    }
}
