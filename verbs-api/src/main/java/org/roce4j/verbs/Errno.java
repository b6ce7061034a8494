package org.roce4j.verbs;

/**
 * The Linux errno values that libibverbs calls return, with the text of {@code strerror(3)}.
 * A backend reports an invalid verbs call with the same errno a C program would see.
 */
public enum Errno {
    EPERM(1, "Operation not permitted"),
    ENOENT(2, "No such file or directory"),
    EIO(5, "Input/output error"),
    EAGAIN(11, "Resource temporarily unavailable"),
    ENOMEM(12, "Cannot allocate memory"),
    EACCES(13, "Permission denied"),
    EFAULT(14, "Bad address"),
    EBUSY(16, "Device or resource busy"),
    EEXIST(17, "File exists"),
    ENODEV(19, "No such device"),
    EINVAL(22, "Invalid argument"),
    ENOSPC(28, "No space left on device"),
    ENOSYS(38, "Function not implemented"),
    EOPNOTSUPP(95, "Operation not supported"),
    ETIMEDOUT(110, "Connection timed out");

    private final int number;
    private final String text;

    Errno(int number, String text) {
        this.number = number;
        this.text = text;
    }

    /** The numeric value, as in {@code <errno.h>} on Linux. */
    public int number() {
        return number;
    }

    /** What {@code strerror(3)} says for this errno. */
    public String text() {
        return text;
    }

    /** The constant for a numeric errno, or {@code EIO} when the number is not one listed here. */
    public static Errno of(int number) {
        for (Errno errno : values()) {
            if (errno.number == number) {
                return errno;
            }
        }
        return EIO;
    }
}
