package org.roce4j.emulator.transport;

import org.roce4j.wire.Opcode;
import org.roce4j.wire.Operation;
import org.roce4j.wire.Position;
import org.roce4j.wire.Transport;

/** Allocation-free (transport, operation) → opcode lookups for the packet builders, from wire's table. */
final class Opcodes {
    private static final Opcode[][] TABLE = new Opcode[Transport.values().length][Operation.values().length];

    static {
        for (Opcode opcode : Opcode.values()) {
            TABLE[opcode.transport().ordinal()][opcode.operation().ordinal()] = opcode;
        }
    }

    private Opcodes() {
    }

    static Opcode of(Transport transport, Operation operation) {
        Opcode opcode = TABLE[transport.ordinal()][operation.ordinal()];
        if (opcode == null) {
            throw new IllegalArgumentException(transport + " has no " + operation);
        }
        return opcode;
    }

    /** The position of packet {@code index} of {@code count} in a message (IBTA 9.4). */
    static Position position(int index, int count) {
        if (count == 1) {
            return Position.ONLY;
        }
        return index == 0 ? Position.FIRST : index == count - 1 ? Position.LAST : Position.MIDDLE;
    }

    /** Packets a message of {@code length} bytes takes at {@code mtu} bytes each; 0 bytes take one. */
    static int packets(long length, int mtu) {
        return length == 0 ? 1 : (int) ((length + mtu - 1) / mtu);
    }
}
