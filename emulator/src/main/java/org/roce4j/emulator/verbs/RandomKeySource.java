package org.roce4j.emulator.verbs;

import java.util.function.IntPredicate;
import java.util.random.RandomGenerator;

/**
 * Unpredictable keys and QPNs (see {@link KeySource} for the layout): every key is 32 random bits,
 * the QPN base is drawn once per RNIC.
 */
final class RandomKeySource implements KeySource {
    /** The lowest QPN base: QPN 0 and 1 are the special QPs (SMI, GSI). */
    static final int LOWEST_QPN = 2;
    /** One past the highest QPN base: slot numbers go up to MAX_QP - 1, and 0xFFFFFF is multicast. */
    static final int QPN_BASE_BOUND = 0xFFFFFF - DeviceLimits.MAX_QP;

    private final RandomGenerator random;
    private final int qpnBase;

    RandomKeySource(RandomGenerator random) {
        this.random = random;
        this.qpnBase = random.nextInt(LOWEST_QPN, QPN_BASE_BOUND);
    }

    @Override
    public int nextMemoryKey(IntPredicate taken) {
        int key;
        do {
            key = random.nextInt();
        } while (key == 0 || taken.test(key));
        return key;
    }

    @Override
    public void memoryKeyRetired(int key) {
        // nothing to reuse: keys are not slot numbers
    }

    @Override
    public int qpnBase() {
        return qpnBase;
    }
}
