package org.roce4j.testkit;

import java.util.ArrayList;
import java.util.List;

import org.assertj.core.api.AbstractAssert;
import org.roce4j.verbs.Cq;
import org.roce4j.verbs.WcStatus;
import org.roce4j.verbs.WorkCompletion;

/**
 * Assertions on a {@link Cq} ({@code struct ibv_cq}) that poll it: the completions the assertion
 * takes are gone from the CQ, as after {@code ibv_poll_cq}; {@link #polled()} hands them over.
 *
 * <pre>{@code
 * assertThat(cq).hasCompletions(WcStatus.SUCCESS, WcStatus.SUCCESS);
 * assertThat(cq).hasCompletions(3).allSucceeded().polled();
 * }</pre>
 */
public final class CqAssert extends AbstractAssert<CqAssert, Cq> {
    private final List<WorkCompletion> polled = new ArrayList<>();

    CqAssert(Cq actual) {
        super(actual, CqAssert.class);
    }

    /**
     * {@return this assertion, after polling exactly {@code count} completions}: fails if fewer
     * arrive (see {@link Completions} for how long it waits) or if more are waiting after them.
     *
     * @param count how many completions the CQ should deliver
     */
    public CqAssert hasCompletions(int count) {
        if (count < 0) {
            throw new IllegalArgumentException("a negative number of completions: " + count);
        }
        isNotNull();
        List<WorkCompletion> got = Completions.pollUpTo(actual, count);
        // One more poll, without waiting, for completions beyond those expected.
        actual.poll().ifPresent(got::add);
        polled.addAll(got);
        if (got.size() != count) {
            StringBuilder text = new StringBuilder();
            for (WorkCompletion wc : got) {
                text.append("\n  ").append(WorkCompletionText.of(wc));
            }
            failWithMessage("%nexpected %d completion(s) on %s but %s%s", count, Describe.resource(actual),
                    got.size() < count ? "only " + got.size() + " arrived" : "more arrived", text.toString().replace("%", "%%"));
        }
        return this;
    }

    /**
     * {@return this assertion, after polling one completion per status given and checking each in order}
     *
     * @param statuses the statuses, in completion order
     */
    public CqAssert hasCompletions(WcStatus... statuses) {
        hasCompletions(statuses.length);
        for (int i = 0; i < statuses.length; i++) {
            WorkCompletion wc = polled.get(polled.size() - statuses.length + i);
            if (wc.status() != statuses[i]) {
                failWithMessage("%ncompletion %d of %d on %s: expected %s%n  %s", i + 1, statuses.length,
                        Describe.resource(actual), Describe.status(statuses[i]),
                        WorkCompletionText.of(wc).replace("%", "%%"));
            }
        }
        return this;
    }

    /**
     * {@return this assertion, after checking the CQ delivers nothing} On the deterministic fabric the
     * "nothing" is proven: polls run the fabric until it is idle, so no frame is left in flight. On the
     * real-time links (threaded, UDP) it keeps polling for a tenth of the completion timeout
     * ({@code roce4j.testkit.timeout}, 10 s by default, so 1 s), which scales with it on a slow machine,
     * so that a late completion still fails it.
     */
    public CqAssert hasNoCompletions() {
        isNotNull();
        var unexpected = Completions.pollUnexpected(actual);
        unexpected.ifPresent(polled::add);
        if (unexpected.isPresent()) {
            failWithMessage("%nexpected no completion on %s but one arrived%n  %s", Describe.resource(actual),
                    WorkCompletionText.of(unexpected.get()).replace("%", "%%"));
        }
        return this;
    }

    /** {@return this assertion, after checking every completion polled so far is {@code IBV_WC_SUCCESS}} */
    public CqAssert allSucceeded() {
        for (WorkCompletion wc : polled) {
            if (!wc.isSuccess()) {
                failWithMessage("%nexpected every completion on %s to be IBV_WC_SUCCESS%n  %s", Describe.resource(actual),
                        WorkCompletionText.of(wc).replace("%", "%%"));
            }
        }
        return this;
    }

    /** {@return the completions this assertion polled, in order} */
    public List<WorkCompletion> polled() {
        return List.copyOf(polled);
    }
}
