package org.roce4j.verbs;

import java.util.EnumSet;
import java.util.Set;

/**
 * The operation of a send work request: {@code enum ibv_wr_opcode}, same names and values, with
 * the one table of which QP types allow which operation (IBTA table 38, "service types supported
 * by each operation", as Linux rxe's {@code rxe_wr_opcode_info} applies it). Posting an operation
 * on a QP type that does not allow it fails with EINVAL.
 */
public enum WrOpcode {
    RDMA_WRITE(0, EnumSet.of(QpType.RC, QpType.UC)),
    RDMA_WRITE_WITH_IMM(1, EnumSet.of(QpType.RC, QpType.UC)),
    SEND(2, EnumSet.of(QpType.RC, QpType.UC, QpType.UD)),
    SEND_WITH_IMM(3, EnumSet.of(QpType.RC, QpType.UC, QpType.UD)),
    RDMA_READ(4, EnumSet.of(QpType.RC)),
    ATOMIC_CMP_AND_SWP(5, EnumSet.of(QpType.RC)),
    ATOMIC_FETCH_AND_ADD(6, EnumSet.of(QpType.RC)),
    // IBTA defines SEND with Invalidate only for RC and XRC: there is no UC or UD opcode for it.
    SEND_WITH_INV(9, EnumSet.of(QpType.RC)),
    // rxe: a local operation of RC queue pairs only.
    LOCAL_INV(7, EnumSet.of(QpType.RC));

    private final int value;
    private final Set<QpType> allowedOn;

    WrOpcode(int value, Set<QpType> allowedOn) {
        this.value = value;
        this.allowedOn = allowedOn;
    }

    /** The {@code IBV_WR_*} value. */
    public int value() {
        return value;
    }

    public boolean isAllowedOn(QpType type) {
        return allowedOn.contains(type);
    }

    /** SEND, SEND_WITH_IMM and SEND_WITH_INV: the operations that consume a receive WQE at the responder. */
    public boolean isSend() {
        return this == SEND || this == SEND_WITH_IMM || this == SEND_WITH_INV;
    }

    public boolean isRdmaWrite() {
        return this == RDMA_WRITE || this == RDMA_WRITE_WITH_IMM;
    }

    public boolean isAtomic() {
        return this == ATOMIC_CMP_AND_SWP || this == ATOMIC_FETCH_AND_ADD;
    }

    public boolean hasImmediate() {
        return this == SEND_WITH_IMM || this == RDMA_WRITE_WITH_IMM;
    }

    /** Operations that name remote memory with an rkey and an address. */
    public boolean targetsRemoteMemory() {
        return isRdmaWrite() || this == RDMA_READ || isAtomic();
    }

    /** Completed locally, no packet sent. */
    public boolean isLocal() {
        return this == LOCAL_INV;
    }

    /** The opcode its send completion reports. */
    public WcOpcode completionOpcode() {
        return switch (this) {
            case RDMA_WRITE, RDMA_WRITE_WITH_IMM -> WcOpcode.RDMA_WRITE;
            case SEND, SEND_WITH_IMM, SEND_WITH_INV -> WcOpcode.SEND;
            case RDMA_READ -> WcOpcode.RDMA_READ;
            case ATOMIC_CMP_AND_SWP -> WcOpcode.COMP_SWAP;
            case ATOMIC_FETCH_AND_ADD -> WcOpcode.FETCH_ADD;
            case LOCAL_INV -> WcOpcode.LOCAL_INV;
        };
    }
}
