package org.roce4j.tools;

import java.util.ArrayDeque;
import java.util.Deque;

/**
 * Verbs calls made the way the C peers make them: a call that fails becomes the tool's own error
 * line (with the reason after it), and every resource opened is closed at the end in the reverse
 * order of creation. Shared by the pingpong and perftest peers.
 */
final class VerbsSteps {
    @FunctionalInterface
    interface Call<T> {
        T call();
    }

    private final Deque<AutoCloseable> resources = new ArrayDeque<>();

    /** Runs a verbs call; a failure becomes the C tool's line (and the reason, indented, after it). */
    static <T> T step(String failure, Call<T> call) throws PingpongFailure {
        try {
            return call.call();
        } catch (RuntimeException e) {
            throw new PingpongFailure(failure, e);
        }
    }

    /** {@link #step} for a call that returns nothing. */
    static void act(String failure, Runnable call) throws PingpongFailure {
        step(failure, () -> {
            call.run();
            return null;
        });
    }

    /** {@link #step} for a resource, which {@link #nextToClose} later hands back, newest first. */
    <T extends AutoCloseable> T open(String failure, Call<T> call) throws PingpongFailure {
        T resource = step(failure, call);
        resources.push(resource);
        return resource;
    }

    /** The most recently opened resource not yet handed back, or null when none is left. */
    AutoCloseable nextToClose() {
        return resources.poll();
    }
}
