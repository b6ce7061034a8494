package org.roce4j.emulator.fabric;

import java.time.Instant;

/**
 * The wall clock of the threaded fabric: the one place in the emulator that calls
 * {@link System#nanoTime()} (DESIGN.md §3.6), so that every other class can be driven by a
 * {@link VirtualClock} in tests.
 */
final class SystemClock implements Clock {

    static final SystemClock INSTANCE = new SystemClock();

    /**
     * Added to {@link #nanoTime()} to get nanoseconds since the epoch, as pcap timestamps need:
     * nanoTime's origin is arbitrary and may make it negative. Taken once, so timestamps stay
     * monotonic even if the wall clock is stepped.
     */
    private final long epochOffsetNanos;

    private SystemClock() {
        Instant wall = Instant.now();
        long epochNanos = wall.getEpochSecond() * 1_000_000_000L + wall.getNano();
        epochOffsetNanos = epochNanos - System.nanoTime();
    }

    @Override
    public long nanoTime() {
        return System.nanoTime();
    }

    @Override
    public long epochOffsetNanos() {
        return epochOffsetNanos;
    }
}
