package org.roce4j.emulator.verbs;

import java.util.ArrayDeque;
import java.util.function.IntPredicate;

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
        while (true) {
            // Reuse the slot freed longest ago (and a new key byte) so that stale keys keep failing.
            int index = freed.size() > 64 || nextIndex >= INDEX_LIMIT ? freed.removeFirst() : nextIndex++;
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
