package org.roce4j.verbs;

/** What a work completion completes: {@code enum ibv_wc_opcode}, same names and values. */
public enum WcOpcode {
    SEND(0),
    RDMA_WRITE(1),
    RDMA_READ(2),
    COMP_SWAP(3),
    FETCH_ADD(4),
    BIND_MW(5),
    LOCAL_INV(6),
    TSO(7),
    /** Set on completions of the receive queue: a SEND arrived. */
    RECV(1 << 7),
    /** A receive consumed by an RDMA WRITE with immediate. */
    RECV_RDMA_WITH_IMM((1 << 7) + 1);

    private final int value;

    WcOpcode(int value) {
        this.value = value;
    }

    public int value() {
        return value;
    }

    /** True for completions of the receive queue ({@code opcode & IBV_WC_RECV}). */
    public boolean isReceive() {
        return (value & RECV.value) != 0;
    }

    public static WcOpcode of(int value) {
        for (WcOpcode opcode : values()) {
            if (opcode.value == value) {
                return opcode;
            }
        }
        throw new IllegalArgumentException("no ibv_wc_opcode " + value);
    }
}
