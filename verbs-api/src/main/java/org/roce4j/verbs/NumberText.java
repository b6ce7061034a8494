package org.roce4j.verbs;

import java.util.Locale;

/**
 * How roce4j prints the numbers that name things on the wire, in every {@code toString}, testkit message
 * and tool line: a QP number and a PSN as six hex digits ({@code 0x000011}: both are 24 bits; rdma-core's
 * {@code ibv_rc_pingpong} prints {@code QPN 0x%06x, PSN 0x%06x}), a key (lkey, rkey, Q_Key, an
 * invalidated rkey) as eight ({@code 0x00001234}, as {@code decode} and Wireshark show an rkey). Lines
 * that repeat a C tool's output word for word keep that tool's format instead.
 */
public final class NumberText {
    private NumberText() {}

    /**
     * {@return a 24-bit QP number as {@code 0x%06x}}
     *
     * @param qpn the QP number
     */
    public static String qpn(int qpn) {
        return String.format(Locale.ROOT, "0x%06x", qpn);
    }

    /**
     * {@return a 24-bit PSN as {@code 0x%06x}}
     *
     * @param psn the packet sequence number
     */
    public static String psn(int psn) {
        return String.format(Locale.ROOT, "0x%06x", psn);
    }

    /**
     * {@return a 32-bit key (lkey, rkey, Q_Key) as {@code 0x%08x}}
     *
     * @param key the key
     */
    public static String key(int key) {
        return String.format(Locale.ROOT, "0x%08x", key);
    }
}
