package org.roce4j.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class CompletionsTest {
    private static long millis(long n) {
        return Duration.ofMillis(n).toNanos();
    }

    @Test
    @DisplayName("a 'nothing arrived' drain waits in proportion to the backend: 20 times the median completion wait, 50 ms at least, 5 s at most")
    void quietPeriodScalesWithTheMeasuredWaits() {
        assertThat(Completions.quietPeriod(new long[] {millis(1), millis(1), millis(1)})).isEqualTo(Duration.ofMillis(50));
        // A slow link (rxe in a VM under TCG): completions take ~30 ms, one took 900 ms.
        assertThat(Completions.quietPeriod(new long[] {millis(30), millis(25), millis(900), millis(35), millis(30)}))
                .isEqualTo(Duration.ofMillis(600));
        assertThat(Completions.quietPeriod(new long[] {millis(2000)})).isEqualTo(Completions.PATIENCE);
        assertThat(Completions.quietPeriod(new long[0])).as("nothing measured yet").isEqualTo(Duration.ofSeconds(1));
    }
}
