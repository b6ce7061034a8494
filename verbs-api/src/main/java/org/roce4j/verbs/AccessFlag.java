package org.roce4j.verbs;

import java.util.Set;

/** Access rights of a memory region or of a QP's responder: {@code enum ibv_access_flags}. */
public enum AccessFlag {
    /** {@code IBV_ACCESS_LOCAL_WRITE}: the local device may write the region (receives, READ responses). */
    LOCAL_WRITE(1),
    /** {@code IBV_ACCESS_REMOTE_WRITE}: peers may RDMA WRITE into it (needs LOCAL_WRITE). */
    REMOTE_WRITE(1 << 1),
    /** {@code IBV_ACCESS_REMOTE_READ}: peers may RDMA READ from it. */
    REMOTE_READ(1 << 2),
    /** {@code IBV_ACCESS_REMOTE_ATOMIC}: peers may apply atomics to it (needs LOCAL_WRITE). */
    REMOTE_ATOMIC(1 << 3),
    /** {@code IBV_ACCESS_MW_BIND}: memory windows may be bound to it. */
    MW_BIND(1 << 4),
    /**
     * {@code IBV_ACCESS_ZERO_BASED}, for a memory window's bind ({@link MwBindInfo#mwAccessFlags()}): the window's
     * first byte is VA 0 to its peers, who address it by offset (IBTA 10.6.7.1). Type 2 windows only: rxe's
     * {@code ibv_bind_mw} of a type 1 window refuses it (EINVAL, IBTA o10-36.2.2).
     */
    ZERO_BASED(1 << 5),
    /**
     * {@code IBV_ACCESS_ON_DEMAND}: on-demand paging, the region's pages are mapped when the device first
     * touches them instead of pinned at registration ({@link Context#queryOdpCaps()} says whether and for
     * which operations the device can; without ODP, registration fails: EOPNOTSUPP, EINVAL on Linux 6.1).
     */
    ON_DEMAND(1 << 6),
    /**
     * {@code IBV_ACCESS_FLUSH_GLOBAL} (rdma-core 45): peers may FLUSH it with the global placement type
     * ({@link FlushType#GLOBAL}); the device must report {@link DeviceCapFlagEx#FLUSH_GLOBAL} (else the
     * kernel refuses the registration: EINVAL before 6.2, whose ib_check_mr_access knows no such bit).
     */
    FLUSH_GLOBAL(1 << 8),
    /**
     * {@code IBV_ACCESS_FLUSH_PERSISTENT} (rdma-core 45): peers may FLUSH it to persistence
     * ({@link FlushType#PERSISTENT}). rxe accepts it only over persistent memory (rxe_mr.c: a page that is not
     * pmem is EINVAL), so on ordinary memory the registration fails EINVAL.
     */
    FLUSH_PERSISTENT(1 << 9);

    private final int bit;

    AccessFlag(int bit) {
        this.bit = bit;
    }

    /** {@return the {@code IBV_ACCESS_*} bit} */
    public int bit() {
        return bit;
    }

    /**
     * {@return the {@code IBV_ACCESS_*} bits of a set}
     *
     * @param flags the rights
     */
    public static int bits(Set<AccessFlag> flags) {
        int bits = 0;
        for (AccessFlag flag : flags) {
            bits |= flag.bit;
        }
        return bits;
    }

    /**
     * {@return the set of a bit mask; bits with no constant here are ignored}
     *
     * @param bits {@code IBV_ACCESS_*} bits
     */
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
