package org.roce4j.verbs;

import java.util.EnumSet;
import java.util.Set;

/**
 * The capabilities a device reports above bit 31 of its 64-bit capability word: {@code device_cap_flags_ex}
 * of {@code struct ibv_device_attr_ex} ({@code ibv_query_device_ex}), the kernel's {@code IB_UVERBS_DEVICE_*}
 * of the same values. {@code ibv_query_device}'s 32-bit {@code device_cap_flags} cannot carry them. rdma-core
 * 44 names only PCI_WRITE_END_PADDING; the others are the kernel's (include/uapi/rdma/ib_user_verbs.h).
 */
public enum DeviceCapFlagEx {
    /** {@code IB_UVERBS_DEVICE_RAW_SCATTER_FCS}: raw packet QPs can scatter the Ethernet FCS. */
    RAW_SCATTER_FCS(1L << 34),
    /** {@code IB_UVERBS_DEVICE_PCI_WRITE_END_PADDING}: incoming writes can be padded to a cache line. */
    PCI_WRITE_END_PADDING(1L << 36),
    /** {@code IB_UVERBS_DEVICE_FLUSH_GLOBAL}: FLUSH with the global-visibility placement type (IBTA 1.5). */
    FLUSH_GLOBAL(1L << 38),
    /** {@code IB_UVERBS_DEVICE_FLUSH_PERSISTENT}: FLUSH with the persistence placement type (IBTA 1.5). */
    FLUSH_PERSISTENT(1L << 39),
    /** {@code IB_UVERBS_DEVICE_ATOMIC_WRITE}: IBTA 1.5 ATOMIC WRITE ({@link QpEx#wrAtomicWrite}); rxe since kernel 6.2. */
    ATOMIC_WRITE(1L << 40);

    private final long bit;

    DeviceCapFlagEx(long bit) {
        this.bit = bit;
    }

    /** {@return the bit in {@code device_cap_flags_ex}} */
    public long bit() {
        return bit;
    }

    /**
     * {@return the flags set in a {@code device_cap_flags_ex} word; bits no constant names are left out}
     *
     * @param bits the word
     */
    public static Set<DeviceCapFlagEx> of(long bits) {
        EnumSet<DeviceCapFlagEx> flags = EnumSet.noneOf(DeviceCapFlagEx.class);
        for (DeviceCapFlagEx flag : values()) {
            if ((bits & flag.bit) != 0) {
                flags.add(flag);
            }
        }
        return flags;
    }

    /**
     * {@return the word of these flags}
     *
     * @param flags the flags
     */
    public static long bits(Set<DeviceCapFlagEx> flags) {
        long bits = 0;
        for (DeviceCapFlagEx flag : flags) {
            bits |= flag.bit;
        }
        return bits;
    }
}
