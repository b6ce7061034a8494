package org.roce4j.tools.analyze;

import java.util.Arrays;

/**
 * Acknowledged bytes per time interval, in fixed memory: at most {@value #INTERVALS} intervals,
 * starting at {@value #FIRST_INTERVAL_NANOS} ns each; when the capture outlasts them, neighbours
 * are merged and the interval doubles, so a long capture gets coarser, never bigger.
 */
final class GoodputSeries {
    static final int INTERVALS = 64;
    static final long FIRST_INTERVAL_NANOS = 1_000_000; // 1 ms

    private final long[] bytes = new long[INTERVALS];
    private long startNanos = -1;
    private long intervalNanos = FIRST_INTERVAL_NANOS;
    private int used;
    private long total;

    void add(long timestampNanos, long byteCount) {
        if (startNanos < 0) {
            startNanos = timestampNanos;
        }
        long offset = Math.max(0, timestampNanos - startNanos);
        while (offset / intervalNanos >= INTERVALS) {
            coarsen();
        }
        int index = (int) (offset / intervalNanos);
        bytes[index] += byteCount;
        used = Math.max(used, index + 1);
        total += byteCount;
    }

    private void coarsen() {
        for (int i = 0; i < INTERVALS / 2; i++) {
            bytes[i] = bytes[2 * i] + bytes[2 * i + 1];
        }
        Arrays.fill(bytes, INTERVALS / 2, INTERVALS, 0);
        used = (used + 1) / 2;
        intervalNanos *= 2;
    }

    long totalBytes() {
        return total;
    }

    long intervalNanos() {
        return intervalNanos;
    }

    /** Bytes acknowledged in each interval from the first acknowledgement on. */
    long[] bytesPerInterval() {
        return Arrays.copyOf(bytes, used);
    }
}
