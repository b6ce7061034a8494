package org.roce4j.verbs;

/** Bits of {@code ibv_wc.wc_flags}. */
public enum WcFlag {
    /** A 40-byte GRH sits at the head of the receive buffer (UD). */
    GRH(1),
    WITH_IMM(1 << 1),
    IP_CSUM_OK(1 << 2),
    WITH_INV(1 << 3);

    private final int bit;

    WcFlag(int bit) {
        this.bit = bit;
    }

    public int bit() {
        return bit;
    }

    public boolean isSetIn(int flags) {
        return (flags & bit) != 0;
    }
}
