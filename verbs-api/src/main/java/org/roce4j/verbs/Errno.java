package org.roce4j.verbs;

/**
 * The Linux errno values that libibverbs calls return, with the text of {@code strerror(3)}.
 * A backend reports an invalid verbs call with the same errno a C program would see.
 */
public enum Errno {
    /** {@code EPERM} (1): operation not permitted. */
    EPERM(1, "Operation not permitted"),
    /** {@code ENOENT} (2): no such file or directory. */
    ENOENT(2, "No such file or directory"),
    /** {@code EIO} (5): input/output error. */
    EIO(5, "Input/output error"),
    /** {@code EAGAIN} (11): resource temporarily unavailable. */
    EAGAIN(11, "Resource temporarily unavailable"),
    /** {@code ENOMEM} (12): cannot allocate memory. */
    ENOMEM(12, "Cannot allocate memory"),
    /** {@code EACCES} (13): permission denied. */
    EACCES(13, "Permission denied"),
    /** {@code EFAULT} (14): bad address. */
    EFAULT(14, "Bad address"),
    /** {@code EBUSY} (16): device or resource busy. */
    EBUSY(16, "Device or resource busy"),
    /** {@code EEXIST} (17): file exists. */
    EEXIST(17, "File exists"),
    /** {@code ENODEV} (19): no such device. */
    ENODEV(19, "No such device"),
    /** {@code EINVAL} (22): invalid argument. */
    EINVAL(22, "Invalid argument"),
    /** {@code ENOSPC} (28): no space left on device. */
    ENOSPC(28, "No space left on device"),
    /** {@code ENOSYS} (38): function not implemented. */
    ENOSYS(38, "Function not implemented"),
    /** {@code ENODATA} (61): no data available. */
    ENODATA(61, "No data available"),
    /** {@code EOPNOTSUPP} (95): operation not supported. */
    EOPNOTSUPP(95, "Operation not supported"),
    /** {@code EADDRINUSE} (98): address already in use. */
    EADDRINUSE(98, "Address already in use"),
    /** {@code EADDRNOTAVAIL} (99): cannot assign requested address. */
    EADDRNOTAVAIL(99, "Cannot assign requested address"),
    /** {@code ENETUNREACH} (101): network is unreachable. */
    ENETUNREACH(101, "Network is unreachable"),
    /** {@code ECONNRESET} (104): connection reset by peer. */
    ECONNRESET(104, "Connection reset by peer"),
    /** {@code EISCONN} (106): transport endpoint is already connected. */
    EISCONN(106, "Transport endpoint is already connected"),
    /** {@code ENOTCONN} (107): transport endpoint is not connected. */
    ENOTCONN(107, "Transport endpoint is not connected"),
    /** {@code ETIMEDOUT} (110): connection timed out. */
    ETIMEDOUT(110, "Connection timed out"),
    /** {@code ECONNREFUSED} (111): connection refused. */
    ECONNREFUSED(111, "Connection refused"),
    /** {@code EHOSTUNREACH} (113): no route to host. */
    EHOSTUNREACH(113, "No route to host"),
    /**
     * {@code ENOTSUPP} (524): the kernel's internal "operation is not supported", which some RDMA core
     * paths return to user space (cma.c: an IPv6 multicast join on RoCEv2); strerror has no text for it.
     */
    ENOTSUPP(524, "Unknown error 524");

    private final int number;
    private final String text;

    Errno(int number, String text) {
        this.number = number;
        this.text = text;
    }

    /** {@return the numeric value, as in {@code <errno.h>} on Linux} */
    public int number() {
        return number;
    }

    /** {@return what {@code strerror(3)} says for this errno} */
    public String text() {
        return text;
    }

    /**
     * {@return the constant for a numeric errno, or {@code EIO} when the number is not one listed here}
     *
     * @param number a Linux errno
     */
    public static Errno of(int number) {
        for (Errno errno : values()) {
            if (errno.number == number) {
                return errno;
            }
        }
        return EIO;
    }
}
