package org.roce4j.ibverbs;

import org.roce4j.verbs.Errno;
import org.roce4j.verbs.VerbsException;

/**
 * What every native verbs object shares. libibverbs would use freed memory after a destroy; here a
 * closed object answers EINVAL (what the kernel answers for a handle it no longer knows, and what the
 * emulator answers). Parents count live children and refuse to close with EBUSY, before any native
 * call: the kernel does so for PDs, CQs and SRQs, but {@code ibv_close_device} would free everything
 * and {@code ibv_destroy_cq} with unacknowledged events would block forever.
 */
abstract class Resource {
    private volatile boolean closed;
    private int children;

    final boolean isClosed() {
        return closed;
    }

    final void checkOpen(String verb) {
        if (closed) {
            throw new VerbsException(Errno.EINVAL, verb + ": the " + kind() + " was already closed");
        }
    }

    final synchronized void addChild() {
        children++;
    }

    final synchronized void removeChild() {
        children--;
    }

    final synchronized int children() {
        return children;
    }

    /**
     * Runs {@code destroy} once, if no children are alive (EBUSY otherwise). A second close does nothing.
     */
    final synchronized void closeOnce(String verb, String childKinds, Runnable destroy) {
        if (closed) {
            return;
        }
        if (children > 0) {
            throw new VerbsException(Errno.EBUSY, verb + ": " + children + " " + childKinds + " still open");
        }
        destroy.run();
        closed = true;
    }

    abstract String kind();
}
