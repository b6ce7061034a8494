package org.roce4j.emulator.fabric;

import java.io.Serial;

/**
 * {@link Fabric#runUntilIdle()} gave up before the fabric became idle: it took its maximum number
 * of steps, or moved virtual time past its maximum, in one call. Most likely an agent reports work
 * forever or retries forever (an RNR retry count of 7 means infinite retries, IBTA C9-141);
 * the limits are set with {@link Fabric#runUntilIdleLimits}. The fabric is left consistent:
 * stepping may go on.
 */
public final class RunLimitExceededException extends RuntimeException {

    @Serial private static final long serialVersionUID = 1L;

    private final long steps;
    private final long virtualNanosElapsed;

    /** @param faults the installed fault plan, named so that the run replays; null if none */
    RunLimitExceededException(String limit, long steps, long virtualNanosElapsed, FabricCounters counters,
            Faults faults) {
        super("runUntilIdle stopped at its limit of " + limit + " without the fabric becoming idle"
                + " (livelock? an agent that always reports work, or retries forever): " + steps
                + " steps, " + virtualNanosElapsed + " ns of virtual time; " + counters
                + (faults == null ? "" : "; " + faults));
        this.steps = steps;
        this.virtualNanosElapsed = virtualNanosElapsed;
    }

    /** {@return the steps taken by the call that gave up} */
    public long steps() {
        return steps;
    }

    /** {@return how far virtual time moved during the call that gave up} */
    public long virtualNanosElapsed() {
        return virtualNanosElapsed;
    }
}
