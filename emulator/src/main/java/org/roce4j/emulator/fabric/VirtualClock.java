package org.roce4j.emulator.fabric;

/**
 * Time that moves only when told to. The deterministic fabric advances it when nothing is
 * runnable, to the next frame delivery or agent deadline, so a run is reproducible.
 *
 * <p>Reads are safe from any thread (the field is volatile); advancing is meant for the one thread
 * that drives the fabric.
 */
public final class VirtualClock implements Clock {

    private volatile long nowNanos;

    /** A clock that starts at 0: pcap timestamps of a deterministic run then start at the epoch. */
    public VirtualClock() {
        this(0);
    }

    /** A clock that starts at {@code startNanos}. */
    public VirtualClock(long startNanos) {
        this.nowNanos = startNanos;
    }

    @Override
    public long nanoTime() {
        return nowNanos;
    }

    /**
     * Moves the clock to {@code nanos}.
     *
     * @throws IllegalArgumentException if {@code nanos} is before now: time never runs backwards
     */
    public void advanceTo(long nanos) {
        long now = nowNanos;
        if (nanos < now) {
            throw new IllegalArgumentException("virtual time cannot go back from " + now + " to " + nanos);
        }
        nowNanos = nanos;
    }

    /**
     * Moves the clock forward by {@code nanos}.
     *
     * @throws IllegalArgumentException if {@code nanos} is negative
     * @throws ArithmeticException if the time would overflow a long
     */
    public void advanceBy(long nanos) {
        if (nanos < 0) {
            throw new IllegalArgumentException("cannot advance by a negative duration: " + nanos);
        }
        advanceTo(Math.addExact(nowNanos, nanos));
    }

    @Override
    public String toString() {
        return "VirtualClock[" + nowNanos + " ns]";
    }
}
