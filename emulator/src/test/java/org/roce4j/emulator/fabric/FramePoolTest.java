package org.roce4j.emulator.fabric;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class FramePoolTest {

    private final FramePool pool = new FramePool();

    @Test
    void anArrayGivenBackIsTheOneTakenNext() {
        byte[] first = pool.take(60);
        pool.give(first);

        assertThat(pool.take(64)).isSameAs(first);
    }

    @Test
    void arraysComeInPowerOfTwoClassesUpToTheLargestFrame() {
        assertThat(pool.take(1)).hasSize(64);
        assertThat(pool.take(64)).hasSize(64);
        assertThat(pool.take(65)).hasSize(128);
        assertThat(pool.take(1_500)).hasSize(2_048);
        assertThat(pool.take(Fabric.MAX_FRAME_LENGTH)).hasSize(16_384);
    }

    @Test
    void theSmallClassIsNotFedFromTheLargeOne() {
        pool.give(pool.take(9_000));

        assertThat(pool.freeCount(60)).isZero();
        assertThat(pool.freeCount(9_000)).isEqualTo(1);
    }

    @Test
    void aBurstIsNotKeptForeverBeyondTheRetentionLimit() {
        byte[][] burst = new byte[FramePool.MAX_RETAINED_PER_CLASS + 10][];
        for (int i = 0; i < burst.length; i++) {
            burst[i] = pool.take(100);
        }
        for (byte[] b : burst) {
            pool.give(b);
        }

        assertThat(pool.freeCount(100)).isEqualTo(FramePool.MAX_RETAINED_PER_CLASS);
    }
}
