package org.roce4j.emulator.fabric;

import java.util.Arrays;
import java.util.EnumSet;
import java.util.Set;
import java.util.function.Predicate;
import org.roce4j.wire.Direction;
import org.roce4j.wire.Opcode;
import org.roce4j.wire.OperationKind;

/**
 * Groups of BTH opcodes a fault rule can aim at, derived from the wire's opcode table (one copy
 * of the rule: {@link Opcode#direction()} and {@link Opcode#kind()}), every transport included.
 */
public enum FrameClass {
    /** Every request: SEND, WRITE, READ request, atomics, FLUSH, ATOMIC WRITE, RESYNC. */
    REQUESTS(opcode -> opcode.direction() == Direction.REQUEST),
    /** ACKs and NAKs (RNR NAKs included): the Acknowledge opcode, whatever the AETH syndrome. */
    ACKS(opcode -> opcode.kind() == OperationKind.ACKNOWLEDGE),
    /** RDMA READ response First, Middle, Last and Only. */
    READ_RESPONSES(opcode -> opcode.kind() == OperationKind.RDMA_READ_RESPONSE),
    /** Atomic Acknowledge: the response to CMP_AND_SWP and FETCH_AND_ADD. */
    ATOMIC_ACKS(opcode -> opcode.kind() == OperationKind.ATOMIC_ACKNOWLEDGE),
    /** RoCEv2 congestion notification packets. */
    CNPS(opcode -> opcode.kind() == OperationKind.CONGESTION_NOTIFICATION);

    private final Set<Opcode> opcodes;

    FrameClass(Predicate<Opcode> member) {
        EnumSet<Opcode> set = EnumSet.noneOf(Opcode.class);
        Arrays.stream(Opcode.values()).filter(member).forEach(set::add);
        this.opcodes = java.util.Collections.unmodifiableSet(set);
    }

    /** {@return the opcodes of this class} */
    public Set<Opcode> opcodes() {
        return opcodes;
    }
}
