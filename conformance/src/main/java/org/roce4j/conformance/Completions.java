package org.roce4j.conformance;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import org.roce4j.verbs.Cq;
import org.roce4j.verbs.WorkCompletion;

/**
 * Polling with a bound: a test waits for completions until a wall-clock deadline, so a backend that
 * loses a completion fails the test instead of hanging it. On the deterministic emulator each poll
 * drives the fabric, so the wait costs no wall time.
 */
final class Completions {
    static final Duration PATIENCE = Duration.ofSeconds(5);
    /** The shortest quiet period of {@link #drain}: what a fast backend needs. */
    static final Duration QUIET_FLOOR = Duration.ofMillis(50);
    /** How many times the typical completion wait a {@link #drain} stays quiet. */
    static final int QUIET_FACTOR = 20;
    private static final int WAITS_KEPT = 32;
    private static final long[] recentWaits = new long[WAITS_KEPT];
    private static int waitsSeen;

    private Completions() {
    }

    /** Exactly {@code n} completions, or an AssertionError saying how many came. */
    static List<WorkCompletion> await(Cq cq, int n) {
        return await(cq, n, "completions");
    }

    /**
     * Exactly {@code n} completions; fewer within {@link #PATIENCE} are an {@link Expect.UnexpectedOutcome}
     * of {@code check} observing how many came.
     */
    static List<WorkCompletion> await(Cq cq, int n, String check) {
        List<WorkCompletion> got = new ArrayList<>(n);
        long start = System.nanoTime();
        long deadline = start + PATIENCE.toNanos();
        while (got.size() < n) {
            WorkCompletion[] batch = new WorkCompletion[n - got.size()];
            int polled = cq.poll(batch);
            for (int i = 0; i < polled; i++) {
                got.add(batch[i]);
            }
            if (polled == 0) {
                if (System.nanoTime() > deadline) {
                    throw new Expect.UnexpectedOutcome(check, n, got.size(), new AssertionError("expected " + n
                            + " completions within " + PATIENCE + ", got " + got.size() + ": " + got));
                }
                Thread.onSpinWait();
            }
        }
        recordWait(System.nanoTime() - start);
        return got;
    }

    /**
     * Gives a device time to put the completions it has been handed (flushes, say) into their CQ without
     * polling them: a {@link #quietPeriod()}. A check that needs them held there fails visibly if they are not.
     */
    static void awaitHeldWithoutPolling() throws InterruptedException {
        Thread.sleep(quietPeriod());
    }

    static WorkCompletion awaitOne(Cq cq) {
        return await(cq, 1).getFirst();
    }

    /**
     * Polls until nothing more arrives, returning whatever came: for "no completion" checks.
     *
     * <p>It waits in proportion to the backend, not a fixed time: the quiet period that ends it is
     * {@link #QUIET_FACTOR} times the median of the last completion waits {@link #await} measured on this
     * backend (from the call to the last completion: a post's round trip through the device), at least
     * {@link #QUIET_FLOOR}, at most {@link #PATIENCE}. So on a slow link (UDP, rxe in a VM under TCG) a late
     * completion still lands inside it; on the deterministic emulator each poll drives the fabric, and the
     * floor alone is many times what it needs. Where a test can, it proves the "nothing" instead (a later
     * operation on the same QP completed, so the earlier one was processed) and the drain is a second check.
     */
    static List<WorkCompletion> drain(Cq cq) {
        List<WorkCompletion> got = new ArrayList<>();
        WorkCompletion[] batch = new WorkCompletion[16];
        long quiet = quietPeriod().toNanos();
        long quietUntil = System.nanoTime() + quiet;
        while (System.nanoTime() < quietUntil) {
            int polled = cq.poll(batch);
            for (int i = 0; i < polled; i++) {
                got.add(batch[i]);
            }
            if (polled > 0) {
                quietUntil = System.nanoTime() + quiet;
            }
        }
        return got;
    }

    /** {@return how long {@link #drain} waits for nothing: see there} */
    static Duration quietPeriod() {
        long[] waits;
        synchronized (recentWaits) {
            waits = Arrays.copyOf(recentWaits, Math.min(waitsSeen, WAITS_KEPT));
        }
        return quietPeriod(waits);
    }

    /** {@return the quiet period after completion waits of these many nanoseconds} */
    static Duration quietPeriod(long[] waitNanos) {
        if (waitNanos.length == 0) {
            return QUIET_FLOOR.multipliedBy(QUIET_FACTOR);   // nothing measured yet: as if the wait were the floor
        }
        long[] sorted = waitNanos.clone();
        Arrays.sort(sorted);
        long median = sorted[sorted.length / 2];
        return Duration.ofNanos(Math.max(QUIET_FLOOR.toNanos(), Math.min(PATIENCE.toNanos(), QUIET_FACTOR * median)));
    }

    private static void recordWait(long nanos) {
        synchronized (recentWaits) {
            recentWaits[waitsSeen++ % WAITS_KEPT] = nanos;
        }
    }
}
