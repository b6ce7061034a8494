package org.roce4j.testkit;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.roce4j.verbs.Cq;
import org.roce4j.verbs.WorkCompletion;

/**
 * Polls a CQ for the completions a test waits for. On a deterministic fabric each poll runs the
 * fabric until nothing is left to do (timers included, in virtual time), so an empty poll means no
 * completion will ever come; on the threaded and UDP links it waits on the real clock, up to
 * {@link #TIMEOUT_PROPERTY} ({@code roce4j.testkit.timeout}, milliseconds, 10 s by default).
 */
public final class Completions {
    /** How long to wait on a real clock, in milliseconds. */
    public static final String TIMEOUT_PROPERTY = "roce4j.testkit.timeout";

    private Completions() {
    }

    /**
     * {@return exactly {@code count} completions from {@code cq}, polled in order}
     *
     * @param cq    the completion queue
     * @param count how many to wait for
     * @throws AssertionError when fewer arrive (the message lists those that did and the requests
     *     the test posted)
     */
    public static List<WorkCompletion> take(Cq cq, int count) {
        List<WorkCompletion> got = pollUpTo(cq, count);
        if (got.size() < count) {
            throw new AssertionError(describeShortfall(cq, count, got));
        }
        return got;
    }

    /**
     * {@return one completion from {@code cq}}
     *
     * @param cq the completion queue
     * @throws AssertionError when none arrives
     */
    public static WorkCompletion takeOne(Cq cq) {
        return take(cq, 1).getFirst();
    }

    /**
     * {@return up to {@code max} completions: as many as arrive before the fabric is idle (deterministic) or
     * the timeout passes (real clock)}
     *
     * @param cq  the completion queue
     * @param max the most to take
     */
    public static List<WorkCompletion> pollUpTo(Cq cq, int max) {
        List<WorkCompletion> got = new ArrayList<>(Math.min(max + 1, 1024));
        WorkCompletion[] batch = new WorkCompletion[Math.max(1, Math.min(max, 64))];
        boolean deterministic = isDeterministic();
        long deadline = System.nanoTime() + timeout().toNanos();
        int emptyPolls = 0;
        while (got.size() < max) {
            int want = Math.min(batch.length, max - got.size());
            WorkCompletion[] into = want == batch.length ? batch : new WorkCompletion[want];
            int n = cq.poll(into);
            for (int i = 0; i < n; i++) {
                got.add(into[i]);
            }
            if (n > 0) {
                emptyPolls = 0;
                continue;
            }
            // Deterministic: a poll ran the fabric until idle; twice empty means nothing is coming.
            if (deterministic ? ++emptyPolls >= 2 : System.nanoTime() > deadline) {
                break;
            }
            if (!deterministic) {
                Thread.onSpinWait();
                if (++emptyPolls % 1024 == 0) {
                    sleepBriefly();
                }
            }
        }
        return got;
    }

    private static void sleepBriefly() {
        try {
            Thread.sleep(1);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted while waiting for completions", e);
        }
    }

    private static boolean isDeterministic() {
        TestFabric test = ActiveTests.current();
        return test != null && test.link() == Link.DETERMINISTIC;
    }

    /**
     * {@return a completion that arrives when none should, or empty} On a deterministic fabric one poll
     * runs the fabric until idle, which proves there is none. On the threaded and UDP links it keeps
     * polling for {@link #quietPeriod()}, so that a completion arriving late on a slow machine is seen.
     *
     * @param cq the completion queue
     */
    static java.util.Optional<WorkCompletion> pollUnexpected(Cq cq) {
        if (isDeterministic()) {
            return cq.poll();
        }
        long quietUntil = System.nanoTime() + quietPeriod().toNanos();
        int emptyPolls = 0;
        do {
            java.util.Optional<WorkCompletion> wc = cq.poll();
            if (wc.isPresent()) {
                return wc;
            }
            Thread.onSpinWait();
            if (++emptyPolls % 1024 == 0) {
                sleepBriefly();
            }
        } while (System.nanoTime() < quietUntil);
        return java.util.Optional.empty();
    }

    /**
     * {@return how long a "no completion" check waits on a real-time link: a tenth of the completion
     * timeout (1 s by default)} It scales with {@link #TIMEOUT_PROPERTY}, which a slow machine (a VM under
     * TCG) raises for every wait.
     */
    static Duration quietPeriod() {
        return timeout().dividedBy(10);
    }

    static Duration timeout() {
        return Duration.ofMillis(Long.getLong(TIMEOUT_PROPERTY, 10_000));
    }

    static String describeShortfall(Cq cq, int count, List<WorkCompletion> got) {
        StringBuilder text = new StringBuilder("expected ").append(count).append(" completion(s) on ")
                .append(Describe.resource(cq)).append(" but ").append(got.size()).append(" arrived")
                .append(isDeterministic() ? " before the fabric went idle" : " within " + timeout().toMillis() + " ms");
        for (WorkCompletion wc : got) {
            text.append("\n  ").append(WorkCompletionText.of(wc));
        }
        return text.toString();
    }
}
