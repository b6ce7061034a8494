package org.roce4j.verbs;

import java.util.EnumSet;
import java.util.Set;

/**
 * The operation of a send work request: {@code enum ibv_wr_opcode}, same names and values, with
 * the one table of which QP types allow which operation (IBTA table 38, "service types supported
 * by each operation", as Linux rxe's {@code rxe_wr_opcode_info} applies it). Posting an operation
 * on a QP type that does not allow it is accepted, as libibverbs and its providers accept it: the
 * device then completes it with {@code LOC_QP_OP_ERR} and moves the QP to ERR.
 */
public enum WrOpcode {
    /** {@code IBV_WR_RDMA_WRITE}: write local buffers into the peer's memory (RC, UC). */
    RDMA_WRITE(0, EnumSet.of(QpType.RC, QpType.UC)),
    /** {@code IBV_WR_RDMA_WRITE_WITH_IMM}: an RDMA WRITE that also consumes a receive at the peer and hands it the immediate value (RC, UC). */
    RDMA_WRITE_WITH_IMM(1, EnumSet.of(QpType.RC, QpType.UC)),
    /** {@code IBV_WR_SEND}: send local buffers into the peer's next posted receive (RC, UC, UD). */
    SEND(2, EnumSet.of(QpType.RC, QpType.UC, QpType.UD)),
    /** {@code IBV_WR_SEND_WITH_IMM}: a SEND whose receive completion carries the immediate value (RC, UC, UD). */
    SEND_WITH_IMM(3, EnumSet.of(QpType.RC, QpType.UC, QpType.UD)),
    /** {@code IBV_WR_RDMA_READ}: read the peer's memory into local buffers (RC). */
    RDMA_READ(4, EnumSet.of(QpType.RC)),
    /** {@code IBV_WR_ATOMIC_CMP_AND_SWP}: 8-byte compare and swap on the peer's memory (RC). */
    ATOMIC_CMP_AND_SWP(5, EnumSet.of(QpType.RC)),
    /** {@code IBV_WR_ATOMIC_FETCH_AND_ADD}: 8-byte fetch and add on the peer's memory (RC). */
    ATOMIC_FETCH_AND_ADD(6, EnumSet.of(QpType.RC)),
    // IBTA defines SEND with Invalidate only for RC and XRC: there is no UC or UD opcode for it.
    /** {@code IBV_WR_SEND_WITH_INV}: a SEND that invalidates an rkey at the responder (RC). */
    SEND_WITH_INV(9, EnumSet.of(QpType.RC)),
    // rxe: a local operation of RC queue pairs only.
    /** {@code IBV_WR_LOCAL_INV}: invalidate a local key; no packet is sent (RC). */
    LOCAL_INV(7, EnumSet.of(QpType.RC)),
    // rxe_opcode.c rxe_wr_opcode_info: IB_WR_BIND_MW is a local operation of RC and UC queue pairs.
    /** {@code IBV_WR_BIND_MW}: bind a memory window (type 2; type 1 through {@link Qp#bindMw}); no packet is sent (RC, UC). */
    BIND_MW(8, EnumSet.of(QpType.RC, QpType.UC)),
    // IBTA 1.5 (9.4.7): RC only; rxe since kernel 6.2 (rxe_req.c next_opcode_rc), posted through ibv_wr_atomic_write.
    /** {@code IBV_WR_ATOMIC_WRITE}: 8 bytes written at the peer as one unit (IBTA 1.5; RC). Its 8 bytes are its data. */
    ATOMIC_WRITE(15, EnumSet.of(QpType.RC)),
    // IBTA 1.5 (9.4.8): RC only; rxe since kernel 6.2 (rxe_opcode.c rxe_wr_opcode_info: IB_WR_FLUSH, RC), posted
    // through ibv_wr_flush (rdma-core 45): ibv_send_wr has no fields for it.
    /** {@code IBV_WR_FLUSH}: make earlier writes to a peer's region globally visible or persistent (IBTA 1.5; RC). */
    FLUSH(14, EnumSet.of(QpType.RC));

    private final int value;
    private final Set<QpType> allowedOn;

    WrOpcode(int value, Set<QpType> allowedOn) {
        this.value = value;
        this.allowedOn = allowedOn;
    }

    /** {@return the {@code IBV_WR_*} value} */
    public int value() {
        return value;
    }

    /**
     * {@return whether a QP of {@code type} may post this operation (IBTA table 38)}
     *
     * @param type the QP type
     */
    public boolean isAllowedOn(QpType type) {
        return allowedOn.contains(type);
    }

    /**
     * {@return true for SEND, SEND_WITH_IMM and SEND_WITH_INV: the operations that consume a receive WQE at the responder}
     */
    public boolean isSend() {
        return this == SEND || this == SEND_WITH_IMM || this == SEND_WITH_INV;
    }

    /** {@return true for RDMA_WRITE and RDMA_WRITE_WITH_IMM} */
    public boolean isRdmaWrite() {
        return this == RDMA_WRITE || this == RDMA_WRITE_WITH_IMM;
    }

    /** {@return true for the two atomic operations} */
    public boolean isAtomic() {
        return this == ATOMIC_CMP_AND_SWP || this == ATOMIC_FETCH_AND_ADD;
    }

    /** {@return true for the operations that carry immediate data} */
    public boolean hasImmediate() {
        return this == SEND_WITH_IMM || this == RDMA_WRITE_WITH_IMM;
    }

    /** {@return true for the operations that name remote memory with an rkey and an address} */
    public boolean targetsRemoteMemory() {
        return isRdmaWrite() || this == RDMA_READ || isAtomic() || this == ATOMIC_WRITE || this == FLUSH;
    }

    /** {@return true for operations completed locally, with no packet sent} */
    public boolean isLocal() {
        return this == LOCAL_INV || this == BIND_MW;
    }

    /** {@return the opcode its send completion reports} */
    public WcOpcode completionOpcode() {
        return switch (this) {
            case RDMA_WRITE, RDMA_WRITE_WITH_IMM -> WcOpcode.RDMA_WRITE;
            case SEND, SEND_WITH_IMM, SEND_WITH_INV -> WcOpcode.SEND;
            case RDMA_READ -> WcOpcode.RDMA_READ;
            case ATOMIC_CMP_AND_SWP -> WcOpcode.COMP_SWAP;
            case ATOMIC_FETCH_AND_ADD -> WcOpcode.FETCH_ADD;
            case LOCAL_INV -> WcOpcode.LOCAL_INV;
            case BIND_MW -> WcOpcode.BIND_MW;
            case ATOMIC_WRITE -> WcOpcode.ATOMIC_WRITE;
            case FLUSH -> WcOpcode.FLUSH;
        };
    }
}
