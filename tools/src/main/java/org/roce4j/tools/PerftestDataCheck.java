package org.roce4j.tools;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * roce4j's data checks in the perftest peers; perftest 6.06 checks no data at all. What can be
 * checked against any peer, C or roce4j, follows from what perftest 6.06 puts in its buffer
 * (perftest_resources.c create_single_mr: random bytes from {@code rand()} seeded with the time,
 * except write_lat's, which is zeroed) and from what the peer does with it:
 * <ul>
 *   <li>READ (read-lat, read-bw clients): the server never touches its buffer while it serves, so
 *       every READ of the same remote bytes must bring the bytes the first one brought.</li>
 *   <li>FETCH_AND_ADD (atomic-lat, atomic-bw clients): only this client adds to the server's word,
 *       1 at a time, so one at a time (lat) each fetches the value before plus 1; several in flight
 *       into one result slot (bw) the slot, read at each completion, never goes down.</li>
 *   <li>CMP_AND_SWAP (compare 1, swap 0): each fetches what the one before fetched, or 0 after a 1.</li>
 *   <li>write-lat (both sides): the peer's message is its zeroed buffer with the iteration number in
 *       the last byte (and, with {@code -a}, the earlier sizes' last numbers), nothing else.</li>
 * </ul>
 * Not checked, and why ({@link #note}): WRITE and SEND bandwidth, send-lat (the peer's bytes are its
 * own random ones, which nobody tells us), the server side of READ and atomics (it sees nothing:
 * the requests do not complete there), and every run with {@code -D} (the loops stop mid-flight).
 */
final class PerftestDataCheck {
    private PerftestDataCheck() {
    }

    /** The line a peer prints after its run: what it checked, or why it could not. */
    static String note(Perftest.Options options) {
        boolean client = options.host() != null;
        Perftest.Verb verb = options.test().verb();
        if (options.duration() > 0) {
            return " roce4j data check: none with -D (the loops stop with requests in flight)";
        }
        if (verb == Perftest.Verb.WRITE && options.test().latency()) {
            return " roce4j data check: each peer message was write_lat's zeroed buffer but for the numbers the runs write";
        }
        if ((verb == Perftest.Verb.READ || verb == Perftest.Verb.ATOMIC) && !client) {
            return " roce4j data check: none on this side (READ and atomics complete at the client only; it checks them)";
        }
        return switch (verb) {
            case READ -> " roce4j data check: every READ returned the bytes the first READ of the same remote buffer did";
            case ATOMIC -> options.atomic() == Perftest.Atomic.CMP_AND_SWAP
                    ? " roce4j data check: each CMP_AND_SWAP fetched what the one before left (the same value, or 0 after 1)"
                    : options.test().latency()
                        ? " roce4j data check: each FETCH_AND_ADD fetched the one before's value plus 1"
                        : " roce4j data check: the fetched values, read at each completion, never went down";
            case WRITE, SEND -> " roce4j data check: none (perftest fills its buffer with random bytes nobody tells us)";
        };
    }

    /** READ: every READ into a QP's slot must bring what its first one brought. */
    static final class Reads {
        private final MemorySegment[] slots;
        private final MemorySegment[] reference;
        private final long[] done;

        /** {@code slots[i]}: where QP i's READs land. */
        Reads(MemorySegment[] slots) {
            this.slots = slots;
            this.reference = new MemorySegment[slots.length];
            this.done = new long[slots.length];
            for (int i = 0; i < slots.length; i++) {
                reference[i] = MemorySegment.ofArray(new byte[(int) slots[i].byteSize()]);
            }
        }

        /** After a READ of QP {@code qp} completed. */
        void completed(int qp) throws PingpongFailure {
            MemorySegment slot = slots[qp];
            if (done[qp]++ == 0) {
                reference[qp].copyFrom(slot);
                return;
            }
            long at = slot.mismatch(reference[qp]);
            if (at >= 0) {
                throw new PingpongFailure(String.format(" roce4j data check: READ %d of qp %d brought 0x%02x at byte %d;"
                        + " the first READ of the same remote bytes brought 0x%02x", done[qp], qp,
                        slot.get(ValueLayout.JAVA_BYTE, at) & 0xFF, at, reference[qp].get(ValueLayout.JAVA_BYTE, at) & 0xFF));
            }
        }
    }

    /** The fetched values of FETCH_AND_ADD or CMP_AND_SWAP, per QP, one at a time or several in flight. */
    static final class Fetches {
        private final boolean compareAndSwap;
        private final boolean oneAtATime;
        private final long[] last;
        private final long[] count;

        Fetches(boolean compareAndSwap, boolean oneAtATime, int qps) {
            this.compareAndSwap = compareAndSwap;
            this.oneAtATime = oneAtATime;
            this.last = new long[qps];
            this.count = new long[qps];
        }

        /** After an atomic of QP {@code qp} completed; {@code fetched} is what its result slot holds now. */
        void completed(int qp, long fetched) throws PingpongFailure {
            long n = ++count[qp];
            long before = last[qp];
            last[qp] = fetched;
            if (n == 1) {
                return;
            }
            if (compareAndSwap) {
                // Several in flight, the slot may already hold a later result: the same rule holds, as the
                // value only ever changes once (1 → 0).
                long expected = before == PerftestTraffic.ADD_VALUE ? PerftestTraffic.SWAP_VALUE : before;
                if (fetched != expected) {
                    throw new PingpongFailure(String.format(" roce4j data check: CMP_AND_SWAP %d of qp %d fetched 0x%x;"
                            + " the one before fetched 0x%x and nothing else writes that word", n, qp, fetched, before));
                }
            } else if (oneAtATime && fetched != before + PerftestTraffic.ADD_VALUE) {
                throw new PingpongFailure(String.format(" FETCH_AND_ADD %d fetched 0x%x; the one before fetched 0x%x"
                        + " and nothing else adds to that word", n, fetched, before));
            } else if (!oneAtATime && Long.compareUnsigned(fetched, before) < 0) {
                throw new PingpongFailure(String.format(" roce4j data check: FETCH_AND_ADD %d of qp %d: its result slot"
                        + " holds 0x%x, less than 0x%x before, and only this client adds to that word", n, qp, fetched, before));
            }
        }
    }

    /**
     * write-lat: the peer's message in our slot is its sending slot, zeroed but for the last byte (the
     * iteration number) and, with {@code -a}, the last byte of every earlier size, where the earlier
     * runs left their final number ({@code iters}).
     */
    static final class WriteLatMessages {
        private final MemorySegment body;
        private final MemorySegment expected;

        WriteLatMessages(MemorySegment message, long[] earlierSizes, int iters) {
            long bodySize = Math.max(0, message.byteSize() - 1);
            this.body = message.asSlice(0, bodySize);
            byte[] bytes = new byte[(int) bodySize];
            for (long earlier : earlierSizes) {
                if (earlier >= 1 && earlier - 1 < bodySize) {
                    bytes[(int) earlier - 1] = (byte) iters;
                }
            }
            this.expected = MemorySegment.ofArray(bytes);
        }

        /** After the peer's write {@code iteration} arrived (its last byte says so). */
        void arrived(int iteration) throws PingpongFailure {
            long at = body.mismatch(expected);
            if (at >= 0) {
                throw new PingpongFailure(String.format(" roce4j data check: the peer's write %d has 0x%02x at byte %d,"
                        + " not 0x%02x (write_lat's buffer is zero but for the last bytes the runs write)", iteration,
                        body.get(ValueLayout.JAVA_BYTE, at) & 0xFF, at, expected.get(ValueLayout.JAVA_BYTE, at) & 0xFF));
            }
        }
    }
}
