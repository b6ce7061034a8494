package org.roce4j.emulator.verbs;

import org.roce4j.verbs.WorkCompletion;

/**
 * The completions of one CQ, oldest first: a single-producer, single-consumer ring. The RNIC adds
 * under the fabric lock; pollers take under their CQ's own lock, never the fabric's — as a real CQ
 * is memory the device writes and the provider library reads, each side owning one index (rxe's
 * {@code rxe_queue.h}: the producer index the driver advances, the consumer index the library does).
 * A poll on the threaded fabric thus no longer hands the fabric lock between the application's thread
 * and the event loop (bench/RESULTS.md, issue 17: each change of owner moves the lock's line and the
 * lines written under it).
 *
 * <p>{@link #produced} and {@link #consumed} count every completion ever added and taken; a slot is
 * written only after {@link #consumed} says it was emptied, and read only after {@link #produced}
 * says it was filled. {@link #resize} is the one call that needs both locks.
 */
final class CompletionRing {
    private WorkCompletion[] slots;
    /** When each completion in {@link #slots} was made: the fabric's clock in ns. */
    private long[] made;
    /** The producer's next slot: touched under the fabric lock only. */
    private int producerSlot;
    /** The consumer's next slot: touched under the CQ's poll lock only. */
    private int consumerSlot;
    private volatile long produced;
    private volatile long consumed;

    CompletionRing(int capacity) {
        this.slots = new WorkCompletion[capacity];
        this.made = new long[capacity];
    }

    int capacity() {
        return slots.length;
    }

    /** Completions added and not yet taken: exact on either side, a snapshot anywhere else. */
    int pending() {
        return (int) (produced - consumed);
    }

    boolean isEmpty() {
        return produced == consumed;
    }

    /** The producer's side. @return false when the ring is full: nothing was added. */
    boolean offer(WorkCompletion completion, long madeNanos) {
        long p = produced;
        if (p - consumed == slots.length) {
            return false;
        }
        slots[producerSlot] = completion;
        made[producerSlot] = madeNanos;
        producerSlot = next(producerSlot);
        produced = p + 1; // publishes the slot
        return true;
    }

    /** The consumer's side: moves up to {@code into.length} completions out, oldest first. */
    int take(WorkCompletion[] into) {
        long c = consumed;
        int n = (int) Math.min(produced - c, into.length);
        for (int i = 0; i < n; i++) {
            into[i] = slots[consumerSlot];
            slots[consumerSlot] = null;
            consumerSlot = next(consumerSlot);
        }
        consumed = c + n; // hands the emptied slots back
        return n;
    }

    /** The consumer's side: the {@code index}-th pending completion (0 the oldest); index < pending(). */
    WorkCompletion peek(int index) {
        return slots[slotOf(index)];
    }

    /** The consumer's side: when the {@code index}-th pending completion was made. */
    long madeAt(int index) {
        return made[slotOf(index)];
    }

    /** The consumer's side: drops the {@code n} oldest completions, n ≤ pending(). */
    void discard(int n) {
        for (int i = 0; i < n; i++) {
            slots[consumerSlot] = null;
            consumerSlot = next(consumerSlot);
        }
        consumed = consumed + n;
    }

    /**
     * Moves the pending completions, oldest first, to a ring of {@code capacity} ≥ pending() slots
     * (rxe_queue.c {@code resize_finish}). Both locks held: neither side runs meanwhile.
     */
    void resize(int capacity) {
        int pending = pending();
        WorkCompletion[] resized = new WorkCompletion[capacity];
        long[] resizedMade = new long[capacity];
        for (int i = 0; i < pending; i++) {
            resized[i] = peek(i);
            resizedMade[i] = madeAt(i);
        }
        slots = resized;
        made = resizedMade;
        consumerSlot = 0;
        producerSlot = pending == capacity ? 0 : pending;
    }

    private int slotOf(int index) {
        int slot = consumerSlot + index;
        return slot >= slots.length ? slot - slots.length : slot;
    }

    private int next(int slot) {
        return slot + 1 == slots.length ? 0 : slot + 1;
    }
}
