package org.roce4j.verbs;

/** Bits of {@code ibv_wc.wc_flags}. */
public enum WcFlag {
    /** A 40-byte GRH sits at the head of the receive buffer (UD). */
    GRH(1),
    /** {@code IBV_WC_WITH_IMM}: the completion carries immediate data. */
    WITH_IMM(1 << 1),
    /** {@code IBV_WC_IP_CSUM_OK}: the device verified the IP checksum (raw packet QPs). */
    IP_CSUM_OK(1 << 2),
    /** {@code IBV_WC_WITH_INV}: the sender invalidated an rkey ({@link WorkCompletion#invalidatedRkey()}). */
    WITH_INV(1 << 3);

    private final int bit;

    WcFlag(int bit) {
        this.bit = bit;
    }

    /** {@return the {@code IBV_WC_*} bit} */
    public int bit() {
        return bit;
    }

    /**
     * {@return whether this flag is set in {@code flags}}
     *
     * @param flags {@code wc_flags} bits
     */
    public boolean isSetIn(int flags) {
        return (flags & bit) != 0;
    }
}
