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
    private final RandomGenerator random;
    private final int qpnBase;

    /** @param maxQp the device's max_qp: slot numbers go up to maxQp - 1, and 0xFFFFFF is multicast */
    RandomKeySource(RandomGenerator random, int maxQp) {
        this.random = random;
        this.qpnBase = random.nextInt(LOWEST_QPN, 0xFFFFFF - maxQp);
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
