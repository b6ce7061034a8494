package org.roce4j.emulator.fabric;

/**
 * Something the fabric drives with a duty cycle, as Aeron drives its agents: the RNIC of each
 * node is one. The fabric calls it from one thread at a time, holding the fabric lock
 * ({@link Fabric#locked(Runnable)}), so an agent needs no locking of its own against frame
 * deliveries or other agents.
 *
 * <p>An agent must not block. What it throws is caught, counted and reported
 * ({@link Fabric#onCallbackFailure}); it never stops the fabric.
 */
public interface Agent {

    /**
     * Does whatever is runnable at {@code nowNanos}.
     *
     * @return how much work was done; 0 means idle. The deterministic fabric advances virtual time
     *     only once every agent returns 0, so an agent that always reports work livelocks a run
     *     (which {@link Fabric#runUntilIdle()} detects).
     */
    int doWork(long nowNanos);

    /**
     * The earliest time this agent wants to run again (a timer), or {@link Long#MAX_VALUE} for
     * none. The fabric calls {@link #doWork} at exactly that time if nothing else happens first.
     * A deadline at or before the current time is ignored when the agent has just reported no
     * work: otherwise an agent that never clears a stale deadline would keep the fabric busy.
     */
    default long nextDeadlineNanos() {
        return Long.MAX_VALUE;
    }
}
