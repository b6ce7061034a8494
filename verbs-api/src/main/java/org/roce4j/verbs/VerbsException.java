package org.roce4j.verbs;

import java.util.Objects;

/**
 * An invalid verbs call: carries the errno that libibverbs returns for the same call, so that code
 * and tests can check {@code e.errno() == Errno.EINVAL} exactly as a C program checks the return value.
 */
public class VerbsException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** What libibverbs returns for the same call. */
    private final Errno errno;

    /**
     * An invalid call.
     *
     * @param errno   what libibverbs returns for it
     * @param message what was wrong
     */
    public VerbsException(Errno errno, String message) {
        super(errno.name() + " (" + errno.text() + "): " + message);
        this.errno = Objects.requireNonNull(errno, "errno");
    }

    /** {@return the errno libibverbs returns for the same call} */
    public Errno errno() {
        return errno;
    }
}
