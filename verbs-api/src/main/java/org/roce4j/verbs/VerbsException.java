package org.roce4j.verbs;

import java.util.Objects;

/**
 * An invalid verbs call: carries the errno that libibverbs returns for the same call, so that code
 * and tests can check {@code e.errno() == Errno.EINVAL} exactly as a C program checks the return value.
 */
public class VerbsException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final Errno errno;

    public VerbsException(Errno errno, String message) {
        super(errno.name() + " (" + errno.text() + "): " + message);
        this.errno = Objects.requireNonNull(errno, "errno");
    }

    public Errno errno() {
        return errno;
    }
}
