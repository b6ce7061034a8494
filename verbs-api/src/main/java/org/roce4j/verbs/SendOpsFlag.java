package org.roce4j.verbs;

import java.util.EnumSet;
import java.util.Set;

/**
 * The operations an extended QP will post through its {@code ibv_wr_*} builder: {@code enum
 * ibv_qp_create_send_ops_flags} ({@code IBV_QP_EX_WITH_*}), the {@code send_ops_flags} of
 * {@code struct ibv_qp_init_attr_ex}. A provider refuses a set it cannot do with EOPNOTSUPP
 * (rdma-core providers/rxe/rxe.c check_qp_init_attr).
 */
public enum SendOpsFlag {
    /** {@code IBV_QP_EX_WITH_RDMA_WRITE}: {@link QpEx#wrRdmaWrite}. */
    RDMA_WRITE(1L, WrOpcode.RDMA_WRITE),
    /** {@code IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM}: {@link QpEx#wrRdmaWriteImm}. */
    RDMA_WRITE_WITH_IMM(1L << 1, WrOpcode.RDMA_WRITE_WITH_IMM),
    /** {@code IBV_QP_EX_WITH_SEND}: {@link QpEx#wrSend}. */
    SEND(1L << 2, WrOpcode.SEND),
    /** {@code IBV_QP_EX_WITH_SEND_WITH_IMM}: {@link QpEx#wrSendImm}. */
    SEND_WITH_IMM(1L << 3, WrOpcode.SEND_WITH_IMM),
    /** {@code IBV_QP_EX_WITH_RDMA_READ}: {@link QpEx#wrRdmaRead}. */
    RDMA_READ(1L << 4, WrOpcode.RDMA_READ),
    /** {@code IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP}: {@link QpEx#wrAtomicCmpSwp}. */
    ATOMIC_CMP_AND_SWP(1L << 5, WrOpcode.ATOMIC_CMP_AND_SWP),
    /** {@code IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD}: {@link QpEx#wrAtomicFetchAdd}. */
    ATOMIC_FETCH_AND_ADD(1L << 6, WrOpcode.ATOMIC_FETCH_AND_ADD),
    /** {@code IBV_QP_EX_WITH_LOCAL_INV}: {@link QpEx#wrLocalInv}. */
    LOCAL_INV(1L << 7, WrOpcode.LOCAL_INV),
    /** {@code IBV_QP_EX_WITH_BIND_MW}: {@link QpEx#wrBindMw}. */
    BIND_MW(1L << 8, WrOpcode.BIND_MW),
    /** {@code IBV_QP_EX_WITH_SEND_WITH_INV}: {@link QpEx#wrSendInv}. */
    SEND_WITH_INV(1L << 9, WrOpcode.SEND_WITH_INV),
    /** {@code IBV_QP_EX_WITH_TSO}: {@code ibv_wr_send_tso} (raw packet QPs only; no RoCE device here has it). */
    TSO(1L << 10, null),
    /** {@code IBV_QP_EX_WITH_FLUSH}: {@link QpEx#wrFlush} (rdma-core 45; 44's rxe provider refuses it: EOPNOTSUPP). */
    FLUSH(1L << 11, WrOpcode.FLUSH),
    /** {@code IBV_QP_EX_WITH_ATOMIC_WRITE}: {@link QpEx#wrAtomicWrite} (rdma-core 44). */
    ATOMIC_WRITE(1L << 12, WrOpcode.ATOMIC_WRITE);

    private final long bit;
    private final WrOpcode opcode;

    SendOpsFlag(long bit, WrOpcode opcode) {
        this.bit = bit;
        this.opcode = opcode;
    }

    /** {@return the {@code IBV_QP_EX_WITH_*} bit} */
    public long bit() {
        return bit;
    }

    /**
     * {@return the flag a QP needs to post {@code opcode} through the builder}
     *
     * @param opcode the operation
     */
    public static SendOpsFlag of(WrOpcode opcode) {
        SendOpsFlag flag = BY_OPCODE[opcode.ordinal()];
        if (flag == null) {
            throw new IllegalArgumentException("no send_ops_flag for " + opcode);
        }
        return flag;
    }

    /** {@link #of(WrOpcode)} without a scan or a copy of {@code values()}: the builder asks on every request. */
    private static final SendOpsFlag[] BY_OPCODE = new SendOpsFlag[WrOpcode.values().length];

    static {
        for (SendOpsFlag flag : values()) {
            if (flag.opcode != null) {
                BY_OPCODE[flag.opcode.ordinal()] = flag;
            }
        }
    }

    /**
     * {@return the {@code send_ops_flags} word of a set}
     *
     * @param flags the operations
     */
    public static long bits(Set<SendOpsFlag> flags) {
        long bits = 0;
        for (SendOpsFlag flag : flags) {
            bits |= flag.bit;
        }
        return bits;
    }

    /**
     * {@return the set of a {@code send_ops_flags} word; bits no constant names are left out}
     *
     * @param bits the word
     */
    public static Set<SendOpsFlag> of(long bits) {
        EnumSet<SendOpsFlag> flags = EnumSet.noneOf(SendOpsFlag.class);
        for (SendOpsFlag flag : values()) {
            if ((bits & flag.bit) != 0) {
                flags.add(flag);
            }
        }
        return flags;
    }
}
