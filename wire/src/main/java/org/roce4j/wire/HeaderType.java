package org.roce4j.wire;

/**
 * The IBA transport headers a RoCEv2 packet may carry, in the order IBTA places them after the
 * BTH (Vol. 1 §9.2, figure 54 and table 38: BTH, RDETH, DETH, XRCETH, RETH, AtomicETH, AETH,
 * AtomicAckETH, ImmDt, IETH). FETH is placed where rxe and IBTA 1.5 put it for FLUSH: directly
 * after BTH and before RETH. The CNP's 16 reserved bytes (Annex A17.9.3) are modelled as a header
 * so that every opcode's layout is "ordered headers, then payload".
 *
 * <p>Enum order is wire order: {@link Opcode} sorts each opcode's headers by it and computes
 * every offset from these lengths.
 */
public enum HeaderType {
    BTH(12),
    RDETH(4),
    DETH(8),
    XRCETH(4),
    FETH(4),
    RETH(16),
    ATOMIC_ETH(28),
    AETH(4),
    ATOMIC_ACK_ETH(8),
    IMM_DT(4),
    IETH(4),
    CNP_RESERVED(16);

    private final int length;

    HeaderType(int length) {
        this.length = length;
    }

    /** Length on the wire, in bytes. */
    public int length() {
        return length;
    }
}
