package org.roce4j.verbs;

import java.util.Set;

/** What {@link Mr#rereg} changes: {@code enum ibv_rereg_mr_flags}. */
public enum ReregFlag {
    /** The memory the region covers ({@code IBV_REREG_MR_CHANGE_TRANSLATION}). */
    CHANGE_TRANSLATION(1),
    /** The protection domain ({@code IBV_REREG_MR_CHANGE_PD}). */
    CHANGE_PD(1 << 1),
    /** The access rights ({@code IBV_REREG_MR_CHANGE_ACCESS}). */
    CHANGE_ACCESS(1 << 2);

    private final int bit;

    ReregFlag(int bit) {
        this.bit = bit;
    }

    /** {@return the {@code IBV_REREG_MR_*} bit} */
    public int bit() {
        return bit;
    }

    /**
     * {@return the flags word of {@code ibv_rereg_mr}}
     *
     * @param flags what the call changes
     */
    public static int bits(Set<ReregFlag> flags) {
        int bits = 0;
        for (ReregFlag flag : flags) {
            bits |= flag.bit;
        }
        return bits;
    }
}
