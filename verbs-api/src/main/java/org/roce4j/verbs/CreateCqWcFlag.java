package org.roce4j.verbs;

import java.util.EnumSet;
import java.util.Set;

/**
 * The fields an extended CQ's completions carry, asked for at {@link Context#createCqEx}: {@code enum
 * ibv_create_cq_wc_flags} ({@code IBV_WC_EX_WITH_*}). A provider refuses what it cannot give with
 * EOPNOTSUPP (rdma-core 44's rxe: anything beyond {@link #STANDARD}, so no completion timestamps).
 */
public enum CreateCqWcFlag {
    /** {@code IBV_WC_EX_WITH_BYTE_LEN}: {@link CqEx#readByteLen()}. */
    BYTE_LEN(1L),
    /** {@code IBV_WC_EX_WITH_IMM}: {@link CqEx#readImmData()}. */
    IMM(1L << 1),
    /** {@code IBV_WC_EX_WITH_QP_NUM}: {@link CqEx#readQpNum()}. */
    QP_NUM(1L << 2),
    /** {@code IBV_WC_EX_WITH_SRC_QP}: {@link CqEx#readSrcQp()}. */
    SRC_QP(1L << 3),
    /** {@code IBV_WC_EX_WITH_SLID}: {@link CqEx#readSlid()}. */
    SLID(1L << 4),
    /** {@code IBV_WC_EX_WITH_SL}: {@link CqEx#readSl()}. */
    SL(1L << 5),
    /** {@code IBV_WC_EX_WITH_DLID_PATH_BITS}: {@link CqEx#readDlidPathBits()}. */
    DLID_PATH_BITS(1L << 6),
    /** {@code IBV_WC_EX_WITH_COMPLETION_TIMESTAMP}: {@link CqEx#readCompletionTs()}, in the device's clock. */
    COMPLETION_TIMESTAMP(1L << 7),
    /** {@code IBV_WC_EX_WITH_CVLAN}: the customer VLAN (not offered here). */
    CVLAN(1L << 8),
    /** {@code IBV_WC_EX_WITH_FLOW_TAG}: the flow tag of a steering rule (not offered here). */
    FLOW_TAG(1L << 9),
    /** {@code IBV_WC_EX_WITH_TM_INFO}: tag matching (not offered here). */
    TM_INFO(1L << 10),
    /** {@code IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK}: the timestamp in wall-clock ns (not offered here). */
    COMPLETION_TIMESTAMP_WALLCLOCK(1L << 11);

    /** {@code IBV_WC_STANDARD_FLAGS}: BYTE_LEN, IMM, QP_NUM, SRC_QP, SLID, SL, DLID_PATH_BITS. */
    public static final Set<CreateCqWcFlag> STANDARD = Set.copyOf(EnumSet.range(BYTE_LEN, DLID_PATH_BITS));

    private final long bit;

    CreateCqWcFlag(long bit) {
        this.bit = bit;
    }

    /** {@return the {@code IBV_WC_EX_WITH_*} bit} */
    public long bit() {
        return bit;
    }

    /**
     * {@return the {@code wc_flags} word of a set}
     *
     * @param flags the fields
     */
    public static long bits(Set<CreateCqWcFlag> flags) {
        long bits = 0;
        for (CreateCqWcFlag flag : flags) {
            bits |= flag.bit;
        }
        return bits;
    }
}
