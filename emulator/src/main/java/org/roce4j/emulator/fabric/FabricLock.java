package org.roce4j.emulator.fabric;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The fabric lock: a {@link ReentrantLock} whose {@link #lock()} spins for a few microseconds before
 * it blocks. Its holders (an application's post or poll, an event-loop cycle) hold it for about a
 * microsecond, less than a blocked thread takes to be woken: parking on it cost the threaded fabric
 * half its SEND rate (bench/RESULTS.md, "the fabric lock"). A CPU alone spins for nothing, so with
 * one processor this is a plain {@link ReentrantLock}.
 */
final class FabricLock extends ReentrantLock {

    /** Longest spin before parking: about the longest event-loop cycle of 64 frames. */
    static final long SPIN_NANOS = TimeUnit.MICROSECONDS.toNanos(20);

    /** Whether a spinning thread can leave a CPU to the one it waits for. */
    static final boolean SPINNING_HELPS = Runtime.getRuntime().availableProcessors() > 1;

    @Override
    public void lock() {
        if (tryLock() || SPINNING_HELPS && spinForIt()) {
            return;
        }
        super.lock();
    }

    private boolean spinForIt() {
        long end = SystemClock.INSTANCE.nanoTime() + SPIN_NANOS;
        do {
            Thread.onSpinWait();
            if (!isLocked() && tryLock()) {
                return true;
            }
        } while (SystemClock.INSTANCE.nanoTime() - end < 0);
        return false;
    }
}
