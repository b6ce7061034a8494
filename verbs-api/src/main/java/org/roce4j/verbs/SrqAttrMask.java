package org.roce4j.verbs;

/** {@code enum ibv_srq_attr_mask}. */
public enum SrqAttrMask {
    /**
     * Resize the SRQ to hold at least {@code max_wr} WQEs, keeping the posted ones (rxe {@code rxe_srq_chk_attr}:
     * EINVAL above the device's max_srq_wr, at 0, below an armed limit, or below the WQEs posted now).
     */
    MAX_WR(1),
    /** Arm the limit event. */
    LIMIT(1 << 1);

    private final int bit;

    SrqAttrMask(int bit) {
        this.bit = bit;
    }

    /** {@return the {@code IBV_SRQ_*} bit} */
    public int bit() {
        return bit;
    }
}
