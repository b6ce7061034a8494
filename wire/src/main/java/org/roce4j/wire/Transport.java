package org.roce4j.wire;

import java.util.EnumSet;
import java.util.Set;

/**
 * The transport service an opcode belongs to: the top three bits of the BTH opcode (IBTA Vol. 1
 * §9.2, table 38; RoCEv2 Annex A17 for CNP; Annex A14 for XRC).
 */
public enum Transport {
    RC(0x00),
    UC(0x20),
    RD(0x40),
    UD(0x60),
    CNP(0x80),
    XRC(0xA0);

    private final int prefix;

    Transport(int prefix) {
        this.prefix = prefix;
    }

    /** The opcode bits this transport contributes: {@code opcode & 0xE0}. */
    public int prefix() {
        return prefix;
    }

    /**
     * The extended transport headers this transport puts between BTH and the operation's own
     * headers (IBTA §9.2 table 38 "headers" column): RD requests carry RDETH and DETH and RD
     * responses RDETH (§9.3.2); UD carries DETH (§9.3.3); XRC requests carry XRCETH (A14.3.1.1).
     */
    Set<HeaderType> headersFor(Operation operation) {
        boolean request = operation.direction() == Direction.REQUEST;
        return switch (this) {
            case RC, UC, CNP -> EnumSet.noneOf(HeaderType.class);
            case RD -> request ? EnumSet.of(HeaderType.RDETH, HeaderType.DETH)
                               : EnumSet.of(HeaderType.RDETH);
            case UD -> EnumSet.of(HeaderType.DETH);
            case XRC -> request ? EnumSet.of(HeaderType.XRCETH)
                                : EnumSet.noneOf(HeaderType.class);
        };
    }
}
