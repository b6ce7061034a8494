package org.roce4j.emulator.fabric;

import java.util.Arrays;
import java.util.Objects;

/**
 * The agents a fabric drives, in registration order. Copy on write: agents are added and removed
 * rarely, and one may remove itself from inside {@link Agent#doWork}, while each duty cycle walks
 * the array with no allocation. Guarded by the fabric lock.
 */
final class AgentRoster {

    private Agent[] agents = new Agent[0];

    void add(Agent agent) {
        Objects.requireNonNull(agent, "agent");
        for (Agent existing : agents) {
            if (existing == agent) {
                throw new IllegalArgumentException("agent already added: " + agent);
            }
        }
        Agent[] more = Arrays.copyOf(agents, agents.length + 1);
        more[agents.length] = agent;
        agents = more;
    }

    /** {@return whether the agent was there} */
    boolean remove(Agent agent) {
        for (int i = 0; i < agents.length; i++) {
            if (agents[i] == agent) {
                Agent[] fewer = new Agent[agents.length - 1];
                System.arraycopy(agents, 0, fewer, 0, i);
                System.arraycopy(agents, i + 1, fewer, i, fewer.length - i);
                agents = fewer;
                return true;
            }
        }
        return false;
    }

    /** Runs every agent once at {@code nowNanos}; {@return the work they reported} */
    int doWork(long nowNanos, CallbackFailures failures) {
        int work = 0;
        for (Agent agent : agents) {
            try {
                int done = agent.doWork(nowNanos);
                if (done > 0) {
                    work += done;
                }
            } catch (RuntimeException | Error e) {
                failures.report(agent, "doWork at " + nowNanos, e);
            }
        }
        return work;
    }

    /**
     * {@return the earliest agent deadline after {@code nowNanos}, or {@link Long#MAX_VALUE}}
     * Deadlines at or before now are skipped: the agents were just run at now and did nothing,
     * so a stale deadline is no reason to run them again (see {@link Agent#nextDeadlineNanos}).
     */
    long earliestDeadlineAfter(long nowNanos, CallbackFailures failures) {
        long earliest = Long.MAX_VALUE;
        for (Agent agent : agents) {
            try {
                long deadline = agent.nextDeadlineNanos();
                if (deadline > nowNanos && deadline < earliest) {
                    earliest = deadline;
                }
            } catch (RuntimeException | Error e) {
                failures.report(agent, "nextDeadlineNanos", e);
            }
        }
        return earliest;
    }

    int size() {
        return agents.length;
    }
}
