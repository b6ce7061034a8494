package org.roce4j.emulator.fabric;

import java.util.Objects;
import java.util.function.BiConsumer;

/**
 * Where exceptions thrown by agents and receivers go. Nothing throws out of the fabric's loop
 * (DESIGN.md §3.3): a failure is counted and handed to a handler, which by default logs it.
 * A handler may rethrow, e.g. in a test that wants an agent's bug to fail the test at once; in
 * deterministic mode that reaches the caller of {@link Fabric#step()}.
 */
final class CallbackFailures {

    private static final System.Logger LOG = System.getLogger(Fabric.class.getName());

    static final BiConsumer<String, Throwable> LOG_WARNING = (where, failure) ->
            LOG.log(System.Logger.Level.WARNING, "fabric callback failed: " + where, failure);

    private volatile BiConsumer<String, Throwable> handler = LOG_WARNING;
    private long count;

    void handler(BiConsumer<String, Throwable> handler) {
        this.handler = Objects.requireNonNull(handler, "handler");
    }

    /**
     * Counts and reports one failure; {@code where} says which callback, built only on failure.
     * A {@link VirtualMachineError} is rethrown: after an OutOfMemoryError nothing is sure.
     */
    void report(Object callback, String what, Throwable failure) {
        if (failure instanceof VirtualMachineError fatal) {
            throw fatal;
        }
        count++;
        handler.accept(what + " of " + callback, failure);
    }

    long count() {
        return count;
    }
}
