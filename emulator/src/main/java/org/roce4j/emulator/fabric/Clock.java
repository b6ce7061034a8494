package org.roce4j.emulator.fabric;

/**
 * Where the emulator reads the time. It is injected so that timers are testable: the
 * deterministic fabric hands out a {@link VirtualClock}, so a 500 ms retransmission timeout costs
 * no wall time in a test (DESIGN.md §3.6).
 */
public interface Clock {
    /** {@return the current time in nanoseconds, from an arbitrary but fixed origin} */
    long nanoTime();

    /**
     * {@return what is added to {@link #nanoTime()} to get nanoseconds since the epoch, as capture
     * timestamps need} 0 by default: a virtual clock's time counts from the epoch, so a
     * deterministic run's captures have the same timestamps every time.
     */
    default long epochOffsetNanos() {
        return 0;
    }

    /** {@return the current time in nanoseconds since the epoch: a capture record's timestamp} */
    default long epochNanos() {
        return nanoTime() + epochOffsetNanos();
    }
}
