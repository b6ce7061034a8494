package org.roce4j.conformance;

import java.time.Duration;
import java.util.ArrayList;
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

    private Completions() {
    }

    /** Exactly {@code n} completions, or an AssertionError saying how many came. */
    static List<WorkCompletion> await(Cq cq, int n) {
        List<WorkCompletion> got = new ArrayList<>(n);
        long deadline = System.nanoTime() + PATIENCE.toNanos();
        while (got.size() < n) {
            WorkCompletion[] batch = new WorkCompletion[n - got.size()];
            int polled = cq.poll(batch);
            for (int i = 0; i < polled; i++) {
                got.add(batch[i]);
            }
            if (polled == 0) {
                if (System.nanoTime() > deadline) {
                    throw new AssertionError("expected " + n + " completions within " + PATIENCE + ", got "
                            + got.size() + ": " + got);
                }
                Thread.onSpinWait();
            }
        }
        return got;
    }

    static WorkCompletion awaitOne(Cq cq) {
        return await(cq, 1).getFirst();
    }

    /** Polls until nothing more arrives (the backend is idle), returning whatever came: for "no completion" checks. */
    static List<WorkCompletion> drain(Cq cq) {
        List<WorkCompletion> got = new ArrayList<>();
        WorkCompletion[] batch = new WorkCompletion[16];
        long quietUntil = System.nanoTime() + Duration.ofMillis(50).toNanos();
        while (System.nanoTime() < quietUntil) {
            int polled = cq.poll(batch);
            for (int i = 0; i < polled; i++) {
                got.add(batch[i]);
            }
            if (polled > 0) {
                quietUntil = System.nanoTime() + Duration.ofMillis(50).toNanos();
            }
        }
        return got;
    }
}
