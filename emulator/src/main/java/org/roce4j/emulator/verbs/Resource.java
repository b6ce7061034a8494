package org.roce4j.emulator.verbs;

import org.roce4j.emulator.node.Rnic;
import org.roce4j.verbs.Errno;
import org.roce4j.verbs.VerbsException;

/**
 * What every emulated verbs object shares: the rule for using one after it was closed. libibverbs
 * would use freed memory; the emulator answers EINVAL, the errno rxe's kernel side gives for an
 * object handle it no longer knows. Parents count live children and refuse to close (EBUSY) while
 * any remain, as {@code ibv_dealloc_pd}, {@code ibv_destroy_cq} and friends do.
 */
abstract class Resource {
    public final Rnic rnic;
    boolean closed;

    Resource(Rnic rnic) {
        this.rnic = rnic;
    }

    /** Throws EINVAL when the object was closed. Call under the fabric lock. */
    final void checkOpen(String verb) {
        if (closed) {
            throw new VerbsException(Errno.EINVAL, verb + ": " + kind() + " was already closed");
        }
    }

    static void checkNoChildren(String verb, int count, String children) {
        if (count > 0) {
            throw new VerbsException(Errno.EBUSY, verb + ": " + count + " " + children + " still open");
        }
    }

    static VerbsException invalid(String verb, String why) {
        return new VerbsException(Errno.EINVAL, verb + ": " + why);
    }

    abstract String kind();
}
