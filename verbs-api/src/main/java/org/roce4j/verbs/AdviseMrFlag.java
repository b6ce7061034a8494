package org.roce4j.verbs;

import java.util.Set;

/** A flag of {@link Pd#adviseMr}: {@code enum ibv_advise_mr_flags}. */
public enum AdviseMrFlag {
    /**
     * {@code IBV_ADVISE_MR_FLAG_FLUSH}: do it now and report its errors; without it the advice is best effort,
     * done later, and only the SGEs' keys are checked before the call returns.
     */
    FLUSH(1);

    private final int bit;

    AdviseMrFlag(int bit) {
        this.bit = bit;
    }

    /** {@return the bit} */
    public int bit() {
        return bit;
    }

    /**
     * {@return the word of these flags}
     *
     * @param flags the flags
     */
    public static int bits(Set<AdviseMrFlag> flags) {
        int bits = 0;
        for (AdviseMrFlag flag : flags) {
            bits |= flag.bit;
        }
        return bits;
    }
}
