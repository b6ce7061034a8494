package org.roce4j.examples;

import java.time.Duration;

import org.roce4j.verbs.Cq;
import org.roce4j.verbs.WcStatus;
import org.roce4j.verbs.WorkCompletion;

/** Busy-polls a CQ, as the rdma-core examples do without a completion channel. */
public final class Polling {
    /** How long an example waits for one completion before it gives up. */
    public static final Duration TIMEOUT = Duration.ofSeconds(Long.getLong("roce4j.examples.timeoutSeconds", 30));

    private Polling() {
    }

    /**
     * {@return the next completion of {@code cq}, which must be successful}
     *
     * @param cq the CQ
     * @throws RdmaFailure if the completion failed or none came within {@link #TIMEOUT}
     */
    public static WorkCompletion next(Cq cq) {
        WorkCompletion[] one = new WorkCompletion[1];
        long deadline = System.nanoTime() + TIMEOUT.toNanos();
        while (cq.poll(one) == 0) {
            if (System.nanoTime() > deadline) {
                throw new RdmaFailure("no completion within " + TIMEOUT.toSeconds() + " s");
            }
            Thread.onSpinWait();
        }
        WorkCompletion wc = one[0];
        if (wc.status() != WcStatus.SUCCESS) {
            throw new RdmaFailure("work request " + wc.wrId() + " failed: " + wc);
        }
        return wc;
    }
}
