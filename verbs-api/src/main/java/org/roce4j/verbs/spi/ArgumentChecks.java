package org.roce4j.verbs.spi;

import org.roce4j.verbs.Errno;
import org.roce4j.verbs.VerbsException;

/**
 * The API's rule for arguments C cannot pass (see the package javadoc of {@code org.roce4j.verbs}):
 * a negative count or size is {@link VerbsException} EINVAL, what libibverbs returns for a count it
 * cannot use; a null reference is a {@link NullPointerException} naming the parameter, which
 * {@link java.util.Objects#requireNonNull(Object, String)} gives. Backends and the API's own records
 * call this one copy.
 */
public final class ArgumentChecks {
    private ArgumentChecks() {
    }

    /**
     * {@return the value, when it is not negative}
     *
     * @param value a count or size
     * @param name  the parameter's name, as the message gives it
     * @throws VerbsException EINVAL when the value is negative
     */
    public static int requireNonNegative(int value, String name) {
        if (value < 0) {
            throw new VerbsException(Errno.EINVAL, name + " is negative: " + value);
        }
        return value;
    }
}
