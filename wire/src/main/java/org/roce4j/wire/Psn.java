package org.roce4j.wire;

/**
 * Packet sequence numbers: 24-bit values compared modulo 2^24.
 *
 * <p>IBTA Vol. 1 §9.7.1: a PSN is 24 bits wide and wraps; a PSN {@code a} is "ahead of" {@code b}
 * when the forward distance from {@code b} to {@code a} is less than 2^23 (half the space). This
 * is the only place in roce4j that does PSN arithmetic.
 */
public final class Psn {
    /** Number of distinct PSNs. */
    public static final int MODULUS = 1 << 24;
    /** Largest valid PSN. */
    public static final int MASK = MODULUS - 1;
    /** Half the PSN space: the window within which one PSN is considered ahead of another. */
    public static final int HALF_WINDOW = 1 << 23;

    private Psn() {}

    /** True when {@code value} fits in 24 bits. */
    public static boolean isValid(int value) {
        return (value & ~MASK) == 0;
    }

    /** Truncates any int to a PSN. */
    public static int of(long value) {
        return (int) (value & MASK);
    }

    /** The PSN after {@code psn}, wrapping from 0xFFFFFF to 0. */
    public static int next(int psn) {
        return (psn + 1) & MASK;
    }

    /** {@code psn + delta} modulo 2^24; {@code delta} may be negative. */
    public static int add(int psn, int delta) {
        return (psn + delta) & MASK;
    }

    /** Forward distance from {@code from} to {@code to}, in [0, 2^24). */
    public static int distance(int from, int to) {
        return (to - from) & MASK;
    }

    /**
     * Compares two PSNs in the 2^23 window: negative when {@code a} is behind {@code b}, zero when
     * equal, positive when {@code a} is ahead. Like rxe's {@code psn_compare}: the 24-bit
     * difference is sign-extended, so the result is in [-2^23, 2^23).
     */
    public static int compare(int a, int b) {
        return ((a - b) << 8) >> 8;
    }

    /** True when {@code a} is strictly ahead of {@code b} within the window. */
    public static boolean isAfter(int a, int b) {
        return compare(a, b) > 0;
    }

    /** True when {@code a} is strictly behind {@code b} within the window. */
    public static boolean isBefore(int a, int b) {
        return compare(a, b) < 0;
    }

    /** Formats a PSN as Wireshark does in its summary (decimal). */
    public static String toString(int psn) {
        return Integer.toString(psn & MASK);
    }
}
