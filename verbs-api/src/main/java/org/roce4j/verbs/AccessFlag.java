package org.roce4j.verbs;

import java.util.Set;

/** Access rights of a memory region or of a QP's responder: {@code enum ibv_access_flags}. */
public enum AccessFlag {
    LOCAL_WRITE(1),
    REMOTE_WRITE(1 << 1),
    REMOTE_READ(1 << 2),
    REMOTE_ATOMIC(1 << 3),
    MW_BIND(1 << 4);

    private final int bit;

    AccessFlag(int bit) {
        this.bit = bit;
    }

    public int bit() {
        return bit;
    }

    /** The {@code IBV_ACCESS_*} bits of a set. */
    public static int bits(Set<AccessFlag> flags) {
        int bits = 0;
        for (AccessFlag flag : flags) {
            bits |= flag.bit;
        }
        return bits;
    }

    /** The set of a bit mask; bits with no constant here are ignored. */
    public static Set<AccessFlag> of(int bits) {
        java.util.EnumSet<AccessFlag> flags = java.util.EnumSet.noneOf(AccessFlag.class);
        for (AccessFlag flag : values()) {
            if ((bits & flag.bit) != 0) {
                flags.add(flag);
            }
        }
        return flags;
    }
}
