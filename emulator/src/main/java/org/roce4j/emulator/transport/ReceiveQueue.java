package org.roce4j.emulator.transport;

import org.roce4j.verbs.RecvWr;
import org.roce4j.verbs.ScatterGatherList;

/**
 * A receive queue, a QP's own or an SRQ's: a ring of receive WQEs in flat arrays. The responder
 * {@linkplain #take takes} the head WQE when a message starts, copying it into its
 * {@link ReceiveCursor}, as rxe copies an SRQ WQE ({@code get_srq_wqe}).
 *
 * <p>A QP's own queue is shared by its posters and the RNIC as rdma-core's rxe provider shares the mmapped
 * receive queue with the kernel ({@code rxe_post_recv} writes the WQE under {@code rq.lock} and advances the
 * producer index; the kernel reads it when a SEND arrives): on a threaded fabric a post takes this queue's
 * monitor, never the fabric lock, writes the slot at {@link #posted} and publishes it by the volatile write of
 * {@code posted}. The RNIC (under the fabric lock) owns {@code [consumed, posted)}; it advances {@link #consumed}
 * only after it has copied the slot out, so a poster that sees room overwrites only a slot already read. Whatever
 * empties the queue behind a poster's back — RESET ({@link #clear}), a QP's destruction — holds the monitor as
 * well (the fabric lock first, then this). An SRQ's queue is posted to under the fabric lock (a resize replaces
 * it).
 */
public final class ReceiveQueue {
    public final int capacity;
    public final int maxSge;
    private final long[] wrId;
    private final int[] numSge;
    /** The SGEs, {@link #maxSge} per slot ({@link SgeCopy#put}). */
    private final long[] sges;
    /** The producer index: written by posters under this queue's monitor, read by the RNIC without it. */
    private volatile long posted;
    /** The consumer index: written by the RNIC under the fabric lock, read by posters for the room left. */
    private volatile long consumed;

    public ReceiveQueue(int capacity, int maxSge) {
        this.capacity = capacity;
        this.maxSge = Math.max(maxSge, 1);
        this.wrId = new long[capacity];
        this.numSge = new int[capacity];
        this.sges = new long[capacity * this.maxSge * SgeCopy.LONGS_PER_SGE];
    }

    public int count() {
        return (int) (posted - consumed);
    }

    public boolean isFull() {
        return posted - consumed >= capacity;
    }

    public void post(RecvWr wr) {
        long tail = posted;
        int slot = (int) Long.remainderUnsigned(tail, capacity);
        ScatterGatherList sgl = wr.sgList();
        wrId[slot] = wr.wrId();
        numSge[slot] = sgl.count();
        int base = slot * maxSge;
        for (int i = 0; i < sgl.count(); i++) {
            SgeCopy.put(sges, base + i, sgl.address(i), sgl.length(i), sgl.lkey(i));
        }
        posted = tail + 1; // publishes the slot
    }

    /** Moves the head WQE into the cursor; false when the queue is empty. */
    public boolean take(ReceiveCursor cursor) {
        long head = consumed;
        if (posted == head) {
            return false;
        }
        int slot = (int) Long.remainderUnsigned(head, capacity);
        cursor.load(wrId[slot], numSge[slot], sges, slot * maxSge);
        consumed = head + 1; // after the copy: the slot is the posters' again
        return true;
    }

    /** The wr_id of the head WQE, removing it (flushing). */
    public long removeHead() {
        long head = consumed;
        long headWrId = wrId[(int) Long.remainderUnsigned(head, capacity)];
        consumed = head + 1; // after the read, as in take
        return headWrId;
    }

    /**
     * {@return a queue of another capacity holding this one's WQEs in the same order} (rxe_queue.c
     * resize_finish); the caller checked that they fit.
     */
    public ReceiveQueue resizedTo(int newCapacity) {
        ReceiveQueue resized = new ReceiveQueue(newCapacity, maxSge);
        for (long i = consumed; i < posted; i++) {
            int from = (int) Long.remainderUnsigned(i, capacity);
            int to = (int) resized.posted++;
            resized.wrId[to] = wrId[from];
            resized.numSge[to] = numSge[from];
            int slotLongs = maxSge * SgeCopy.LONGS_PER_SGE;
            System.arraycopy(sges, from * slotLongs, resized.sges, to * slotLongs, slotLongs);
        }
        return resized;
    }

    public void clear() {
        consumed = posted;
    }
}
