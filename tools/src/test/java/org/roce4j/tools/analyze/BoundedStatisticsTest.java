package org.roce4j.tools.analyze;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.Arrays;
import java.util.SplittableRandom;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The fixed-memory statistics behind the report: quantiles within their stated error, goodput that coarsens but keeps every byte. */
class BoundedStatisticsTest {
    @Test
    @DisplayName("latency quantiles are exact for the first 1024 samples (nearest rank)")
    void quantilesAreExactForShortCaptures() {
        LatencyStats stats = new LatencyStats();
        for (long v = 1000; v >= 1; v--) {
            stats.add(v * 1000);
        }
        assertThat(stats.count()).isEqualTo(1000);
        assertThat(stats.min()).isEqualTo(1000);
        assertThat(stats.quantile(0.5)).isEqualTo(500_000);
        assertThat(stats.quantile(0.99)).isEqualTo(990_000);
        assertThat(stats.max()).isEqualTo(1_000_000);
    }

    @Test
    @DisplayName("past 1024 samples the histogram's quantiles are within 1/32 of the exact ones (seed 4791)")
    void histogramQuantilesAreWithinOneThirtySecond() {
        LatencyStats stats = new LatencyStats();
        SplittableRandom random = new SplittableRandom(4791);
        long[] samples = new long[100_000];
        for (int i = 0; i < samples.length; i++) {
            samples[i] = 1_000 + random.nextLong(50_000_000);
            stats.add(samples[i]);
        }
        Arrays.sort(samples);
        for (double q : new double[] {0.5, 0.99}) {
            long exact = samples[(int) Math.ceil(q * samples.length) - 1];
            assertThat((double) stats.quantile(q)).as("q=" + q).isCloseTo(exact, within(exact / 32.0));
        }
        assertThat(stats.min()).isEqualTo(samples[0]);
        assertThat(stats.max()).isEqualTo(samples[samples.length - 1]);
    }

    @Test
    @DisplayName("goodput keeps at most 64 intervals: a long capture doubles the interval and loses no byte")
    void goodputCoarsensWithoutLosingBytes() {
        GoodputSeries goodput = new GoodputSeries();
        for (int ms = 0; ms < 1000; ms++) {
            goodput.add(ms * 1_000_000L, 100);
        }
        assertThat(goodput.bytesPerInterval()).hasSizeLessThanOrEqualTo(GoodputSeries.INTERVALS);
        assertThat(goodput.intervalNanos()).isEqualTo(16_000_000L); // 1 ms doubled until 1000 ms fits in 64 intervals
        assertThat(Arrays.stream(goodput.bytesPerInterval()).sum()).isEqualTo(100_000);
        assertThat(goodput.totalBytes()).isEqualTo(100_000);
        assertThat(goodput.bytesPerInterval()[0]).isEqualTo(1600);
    }
}
