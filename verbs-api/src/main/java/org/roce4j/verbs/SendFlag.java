package org.roce4j.verbs;

/** Bits of {@code ibv_send_wr.send_flags}. */
public enum SendFlag {
    /** Wait for all earlier RDMA READs and atomics to complete before starting this one. */
    FENCE(1),
    /** Generate a completion even when the QP was created without {@code sq_sig_all}. */
    SIGNALED(1 << 1),
    /** Ask the receiver to raise a solicited event (IBTA 9.2.1, the SE bit). */
    SOLICITED(1 << 2),
    /** Copy the data at post time; the SGEs' lkeys are not checked. */
    INLINE(1 << 3),
    /** {@code IBV_SEND_IP_CSUM}: offload the IP checksum (raw packet QPs; ignored on RoCE). */
    IP_CSUM(1 << 4);

    private final int bit;

    SendFlag(int bit) {
        this.bit = bit;
    }

    /** {@return the {@code IBV_SEND_*} bit} */
    public int bit() {
        return bit;
    }

    /**
     * {@return whether this flag is set in {@code flags}}
     *
     * @param flags {@code send_flags} bits
     */
    public boolean isSetIn(int flags) {
        return (flags & bit) != 0;
    }
}
