package org.roce4j.emulator.fabric;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The one thread of a threaded fabric: runs duty cycles against the system clock and, when idle,
 * spins a little and then parks until the next frame or agent deadline or until woken.
 */
final class EventLoop implements Runnable {

    private static final System.Logger LOG = System.getLogger(Fabric.class.getName());

    /** Frames delivered per hold of the lock, so that application threads get their turn. */
    static final int FRAMES_PER_CYCLE = 64;

    /**
     * Below this a wait yields instead of parking: parkNanos sleeps for tens of microseconds at
     * least on Linux, far longer than the default 1 µs link delay.
     */
    static final long SHORTEST_PARK_NANOS = TimeUnit.MICROSECONDS.toNanos(50);

    /** Waits with no deadline are cut to this, so a lost wake-up costs at most this much. */
    static final long LONGEST_PARK_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

    /**
     * How long an idle loop spins before it parks (bench/RESULTS.md, "spinning before the park"):
     * longer than an application takes between a completion and its next post.
     */
    static final long SPIN_BEFORE_PARK_NANOS = TimeUnit.MICROSECONDS.toNanos(20);

    /** The pause in wake-ups that ends a burst of posts (300 ns: 1.6 M SENDs/s; 1 µs gave 1.1–1.3 M). */
    static final long QUIET_NANOS = 300;

    static final long STOP_TIMEOUT_MILLIS = 10_000;

    private final Fabric fabric;
    private final boolean spinsBeforeParking;
    private final Thread thread;
    /** Bumped by every wake-up; compared before parking so that no wake-up is lost. */
    private final AtomicLong wakeUps = new AtomicLong();
    private volatile boolean parked;

    EventLoop(Fabric fabric, IdleStrategy idleStrategy) {
        this.fabric = fabric;
        this.spinsBeforeParking = idleStrategy == IdleStrategy.SPIN_THEN_PARK && FabricLock.SPINNING_HELPS;
        this.thread = Thread.ofPlatform().daemon().name("roce4j-fabric-event-loop").unstarted(this);
    }

    void start() {
        thread.start();
    }

    Thread thread() {
        return thread;
    }

    long wakeUps() {
        return wakeUps.get();
    }

    void wakeUp() {
        wakeUps.incrementAndGet();
        if (parked) {
            LockSupport.unpark(thread);
        }
    }

    /** A transmit from the loop's own thread needs no wake-up: the loop looks at the queue next. */
    void wakeUpFromOutside() {
        if (Thread.currentThread() != thread) {
            wakeUp();
        }
    }

    /** Asks the loop to end and waits for it, unless called from the loop itself. */
    void stop() {
        wakeUp();
        if (Thread.currentThread() == thread) {
            return;
        }
        try {
            thread.join(STOP_TIMEOUT_MILLIS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (thread.isAlive()) {
            LOG.log(System.Logger.Level.WARNING, "fabric event loop did not stop within "
                    + STOP_TIMEOUT_MILLIS + " ms: an agent or receiver blocks");
        }
    }

    @Override
    public void run() {
        Clock clock = fabric.clock();
        ReentrantLock lock = fabric.lock();
        while (!fabric.isClosed()) {
            long wakeUpsSeen = wakeUps.get();
            lock.lock();
            // The clock is read holding the lock: a cycle that waited behind an application's call
            // would otherwise arm that call's timers (the ACK timeout) with the time before the wait.
            long now = clock.nanoTime();
            long next;
            try {
                if (fabric.isClosed()) {
                    break;
                }
                next = fabric.runLoopCycle(now);
            } catch (RuntimeException | Error e) {
                // Only a failure handler that rethrows gets here; the loop must go on.
                LOG.log(System.Logger.Level.WARNING, "fabric event loop: callback failure rethrown", e);
                next = now;
            } finally {
                lock.unlock();
            }
            if (next == now) {
                if (lock.hasQueuedThreads()) {
                    Thread.yield(); // the lock is not fair: let a waiting application thread in
                }
                continue;
            }
            idle(clock, next, wakeUpsSeen);
        }
    }

    private void idle(Clock clock, long nextNanos, long wakeUpsSeen) {
        if (spinsBeforeParking && waitNanos(clock, nextNanos) >= SHORTEST_PARK_NANOS
                && spinBeforePark(clock, wakeUpsSeen)) {
            return;
        }
        parked = true;
        try {
            if (wakeUps.get() != wakeUpsSeen || fabric.isClosed()) {
                return;
            }
            long wait = waitNanos(clock, nextNanos);
            if (wait <= 0) {
                return;
            }
            if (wait < SHORTEST_PARK_NANOS) {
                Thread.yield();
            } else {
                LockSupport.parkNanos(this, Math.min(wait, LONGEST_PARK_NANOS));
            }
        } finally {
            parked = false;
        }
    }

    /** How long until {@code nextNanos}; a wait with no deadline is cut to {@link #LONGEST_PARK_NANOS}. */
    private static long waitNanos(Clock clock, long nextNanos) {
        return nextNanos == Long.MAX_VALUE ? LONGEST_PARK_NANOS : nextNanos - clock.nanoTime();
    }

    /**
     * Spins instead of parking, for {@link #SPIN_BEFORE_PARK_NANOS}: a parked loop takes tens of
     * microseconds to wake on a virtual machine, longer than a round trip. Once woken it waits for
     * {@link #QUIET_NANOS} without another wake-up, so that an application's burst of posts is one
     * cycle, not one cycle and one lock hand-over per post. {@return whether it was woken}
     */
    private boolean spinBeforePark(Clock clock, long wakeUpsSeen) {
        long start = clock.nanoTime();
        long lastChange = start;
        long seen = wakeUpsSeen;
        while (true) {
            long now = clock.nanoTime();
            long current = wakeUps.get();
            if (current != seen) {
                seen = current;
                lastChange = now;
            }
            if (seen != wakeUpsSeen && now - lastChange >= QUIET_NANOS || fabric.isClosed()) {
                return true;
            }
            if (now - start >= SPIN_BEFORE_PARK_NANOS) {
                return seen != wakeUpsSeen;
            }
            Thread.onSpinWait();
        }
    }
}
