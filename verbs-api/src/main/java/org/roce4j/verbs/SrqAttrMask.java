package org.roce4j.verbs;

/** {@code enum ibv_srq_attr_mask}. */
public enum SrqAttrMask {
    /** Resize the SRQ (EINVAL unless the device supports it; the emulator does not). */
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
