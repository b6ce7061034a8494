package org.roce4j.tools;

/**
 * perftest's {@code -D SECONDS} ({@code catch_alarm} in perftest_resources.c): a run of SECONDS
 * that measures only its middle. The states follow each other by the clock: START for the margin,
 * SAMPLE until the margin before the end, STOP for the margin, then END, when the loops stop. The
 * margin is 2 seconds unless twice that is not less than the duration, then a quarter of the
 * duration in whole seconds (so {@code -D 3} samples all 3 seconds, as C against C shows:
 * t_avg x iterations = 3 s). Iterations completed during SAMPLE are the ones reported.
 */
final class PerftestDuration {
    static final int DEFAULT_MARGIN_SECONDS = 2;

    private final long sampleStart;
    private final long sampleEnd;
    private final long end;

    private PerftestDuration(long now, int seconds) {
        int margin = 2 * DEFAULT_MARGIN_SECONDS < seconds ? DEFAULT_MARGIN_SECONDS : seconds / 4;
        this.sampleStart = now + margin * 1_000_000_000L;
        this.sampleEnd = now + (seconds - margin) * 1_000_000_000L;
        this.end = now + seconds * 1_000_000_000L;
    }

    /** Starts the clock now. */
    static PerftestDuration start(int seconds) {
        return new PerftestDuration(System.nanoTime(), seconds);
    }

    boolean ended() {
        return System.nanoTime() - end >= 0;
    }

    boolean sampling() {
        long now = System.nanoTime();
        return now - sampleStart >= 0 && now - sampleEnd < 0;
    }

    /** The length of the SAMPLE state, the time the report divides by. */
    long sampleNanos() {
        return sampleEnd - sampleStart;
    }
}
