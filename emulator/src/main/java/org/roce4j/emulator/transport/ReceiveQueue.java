package org.roce4j.emulator.transport;

import org.roce4j.verbs.RecvWr;
import org.roce4j.verbs.ScatterGatherList;

/**
 * A receive queue, a QP's own or an SRQ's: a ring of receive WQEs in flat arrays. The responder
 * {@linkplain #take takes} the head WQE when a message starts, copying it into its
 * {@link ReceiveCursor}, as rxe copies an SRQ WQE ({@code get_srq_wqe}).
 */
public final class ReceiveQueue {
    public final int capacity;
    public final int maxSge;
    private final long[] wrId;
    private final int[] numSge;
    /** The SGEs, {@link #maxSge} per slot ({@link SgeCopy#put}). */
    private final long[] sges;
    private long posted;
    private long consumed;

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
        int slot = (int) Long.remainderUnsigned(posted, capacity);
        ScatterGatherList sgl = wr.sgList();
        wrId[slot] = wr.wrId();
        numSge[slot] = sgl.count();
        int base = slot * maxSge;
        for (int i = 0; i < sgl.count(); i++) {
            SgeCopy.put(sges, base + i, sgl.address(i), sgl.length(i), sgl.lkey(i));
        }
        posted++;
    }

    /** Moves the head WQE into the cursor; false when the queue is empty. */
    public boolean take(ReceiveCursor cursor) {
        if (posted == consumed) {
            return false;
        }
        int slot = (int) Long.remainderUnsigned(consumed, capacity);
        cursor.load(wrId[slot], numSge[slot], sges, slot * maxSge);
        consumed++;
        return true;
    }

    /** The wr_id of the head WQE, removing it (flushing). */
    public long removeHead() {
        int slot = (int) Long.remainderUnsigned(consumed, capacity);
        consumed++;
        return wrId[slot];
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
