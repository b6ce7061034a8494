package org.roce4j.emulator.verbs;

import java.util.ArrayDeque;
import java.util.function.IntPredicate;

import org.roce4j.verbs.Errno;
import org.roce4j.verbs.VerbsException;

/**
 * Keys {@code index << 8 | key byte} and QPNs from 17, counted: the deterministic fabric's
 * numbering, the same on every run (the committed pcaps and the testkit's replays depend on it).
 * Predictable by design; see {@link KeySource}.
 */
final class SequentialKeySource implements KeySource {
    /** rxe numbers user QPs from 17 upwards (QP 0 and 1 are the special QPs, 2..16 unused). */
    static final int FIRST_QPN = 17;
    /** rxe: RXE_MIN_MR_INDEX; index 0 is never used, so key 0 never names a region. */
    private static final int FIRST_INDEX = 1;
    private static final int INDEX_LIMIT = 1 << 24;

    private final ArrayDeque<Integer> freed = new ArrayDeque<>();
    private int nextIndex = FIRST_INDEX;
    private int keyByte;

    @Override
    public int nextMemoryKey(IntPredicate taken) {
        int triedFreed = 0;
        while (true) {
            // Reuse the slot freed longest ago (and a new key byte) so that stale keys keep failing. A slot
            // whose every key is taken (a memory window needs a whole family of 256) is tried once per call:
            // then a fresh slot, so that a queue of such slots cannot hold the search forever.
            boolean reuse = (freed.size() > 64 || nextIndex >= INDEX_LIMIT) && triedFreed < freed.size();
            if (!reuse && nextIndex >= INDEX_LIMIT) {
                throw new VerbsException(Errno.ENOMEM, "every memory key of the device is in use");
            }
            int index = reuse ? freed.removeFirst() : nextIndex++;
            triedFreed += reuse ? 1 : 0;
            for (int tries = 0; tries < 256; tries++) {
                keyByte = (keyByte + 1) & 0xFF;
                int key = index << 8 | keyByte;
                if (!taken.test(key)) {
                    return key;
                }
            }
            freed.addLast(index); // every byte of this slot is still remembered: try another slot
        }
    }

    @Override
    public void memoryKeyRetired(int key) {
        freed.addLast(key >>> 8);
    }

    @Override
    public int qpnBase() {
        return FIRST_QPN;
    }
}
