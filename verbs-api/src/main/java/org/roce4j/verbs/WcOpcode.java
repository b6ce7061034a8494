package org.roce4j.verbs;

/** What a work completion completes: {@code enum ibv_wc_opcode}, same names and values. */
public enum WcOpcode {
    /** {@code IBV_WC_SEND}: a SEND (with or without immediate or invalidate) completed at the requester. */
    SEND(0),
    /** {@code IBV_WC_RDMA_WRITE}: an RDMA WRITE (with or without immediate) completed. */
    RDMA_WRITE(1),
    /** {@code IBV_WC_RDMA_READ}: an RDMA READ completed; the data is in the local buffers. */
    RDMA_READ(2),
    /** {@code IBV_WC_COMP_SWAP}: a compare and swap completed; the original value is in the local buffer. */
    COMP_SWAP(3),
    /** {@code IBV_WC_FETCH_ADD}: a fetch and add completed; the original value is in the local buffer. */
    FETCH_ADD(4),
    /** {@code IBV_WC_BIND_MW}: a memory window bind completed. */
    BIND_MW(5),
    /** {@code IBV_WC_LOCAL_INV}: a local invalidate completed. */
    LOCAL_INV(6),
    /** {@code IBV_WC_TSO}: a TCP segmentation offload send completed (raw packet QPs). */
    TSO(7),
    /** {@code IBV_WC_FLUSH} (8, rdma-core 45): a FLUSH completed at the requester. */
    FLUSH(8),
    /** Set on completions of the receive queue: a SEND arrived. */
    RECV(1 << 7),
    /** A receive consumed by an RDMA WRITE with immediate. */
    RECV_RDMA_WITH_IMM((1 << 7) + 1),
    /** {@code IBV_WC_ATOMIC_WRITE} (9, rdma-core 44): an ATOMIC WRITE completed at the requester. */
    ATOMIC_WRITE(9);

    private final int value;

    WcOpcode(int value) {
        this.value = value;
    }

    /** {@return the numeric value of {@code IBV_WC_*}} */
    public int value() {
        return value;
    }

    /** {@return true for completions of the receive queue ({@code opcode & IBV_WC_RECV})} */
    public boolean isReceive() {
        return (value & RECV.value) != 0;
    }

    /**
     * {@return the constant for an {@code IBV_WC_*} value}
     *
     * @param value the numeric opcode
     * @throws IllegalArgumentException if there is no such opcode
     */
    public static WcOpcode of(int value) {
        for (WcOpcode opcode : values()) {
            if (opcode.value == value) {
                return opcode;
            }
        }
        throw new IllegalArgumentException("no ibv_wc_opcode " + value);
    }
}
