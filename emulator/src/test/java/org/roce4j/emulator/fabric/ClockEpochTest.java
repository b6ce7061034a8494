package org.roce4j.emulator.fabric;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** Capture timestamps: a clock's time since the epoch, the one rule the fabric's tap and the UDP link's share. */
class ClockEpochTest {
    @Test
    @DisplayName("virtual time counts from the epoch: epochNanos is nanoTime, so deterministic captures repeat")
    void virtualTimeIsEpochTime() {
        VirtualClock clock = new VirtualClock(1_234_567_890L);
        assertThat(clock.epochOffsetNanos()).isZero();
        assertThat(clock.epochNanos()).isEqualTo(1_234_567_890L);
    }

    @Test
    @DisplayName("the system clock's epochNanos is the wall clock's time (within a second)")
    void systemClockIsWallTime() {
        Instant now = Instant.now();
        long wall = now.getEpochSecond() * 1_000_000_000L + now.getNano();
        long epoch = SystemClock.INSTANCE.epochNanos();
        assertThat(Math.abs(epoch - wall)).isLessThan(1_000_000_000L);
    }
}
