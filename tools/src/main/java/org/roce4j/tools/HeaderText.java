package org.roce4j.tools;

import static java.lang.String.format;
import static java.util.Locale.ROOT;

import org.roce4j.wire.Aeth;
import org.roce4j.wire.AethSyndrome;
import org.roce4j.wire.AtomicAckEth;
import org.roce4j.wire.AtomicEth;
import org.roce4j.wire.Bth;
import org.roce4j.wire.CnpReserved;
import org.roce4j.wire.Deth;
import org.roce4j.wire.ExtensionHeader;
import org.roce4j.wire.Feth;
import org.roce4j.wire.HeaderType;
import org.roce4j.wire.Ieth;
import org.roce4j.wire.ImmDt;
import org.roce4j.wire.Opcode;
import org.roce4j.wire.Operation;
import org.roce4j.wire.Rdeth;
import org.roce4j.wire.Reth;
import org.roce4j.wire.Xrceth;

/**
 * How {@code roce4j decode} writes the transport headers: each header's name and its fields as
 * {@code key=value} text. QPNs, keys and addresses are hex (QPNs six digits, as 24-bit values);
 * PSNs, MSNs and lengths decimal, as tshark shows them.
 */
final class HeaderText {
    private HeaderText() {}

    /** The header's name as Wireshark and IBTA write it. */
    static String name(HeaderType type) {
        return switch (type) {
            case BTH -> "BTH";
            case RDETH -> "RDETH";
            case DETH -> "DETH";
            case XRCETH -> "XRCETH";
            case FETH -> "FETH";
            case RETH -> "RETH";
            case ATOMIC_ETH -> "AtomicETH";
            case AETH -> "AETH";
            case ATOMIC_ACK_ETH -> "AtomicAckETH";
            case IMM_DT -> "ImmDt";
            case IETH -> "IETH";
            case CNP_RESERVED -> "CNP"; // its 16 reserved bytes (A17.9.3)
        };
    }

    /** Every BTH field (IBTA §9.2), for {@code --verbose}. */
    static String bth(Bth bth) {
        return format(ROOT, "opcode=0x%02x SE=%d M=%d pad=%d TVer=%d P_Key=0x%04x FECN=%d BECN=%d QP=0x%06x A=%d PSN=%d",
                bth.opcode().code(), bit(bth.solicitedEvent()), bit(bth.migReq()), bth.padCount(),
                bth.transportVersion(), bth.pkey(), bit(bth.fecn()), bit(bth.becn()), bth.destQp(),
                bit(bth.ackReq()), bth.psn());
    }

    /**
     * The fields the one-line summary shows, or null for a header it leaves out (the CNP's
     * reserved bytes). A Fetch Add shows no compare value: IBTA §9.3.5 says it is ignored.
     */
    static String summary(ExtensionHeader header, Opcode opcode) {
        return switch (header) {
            case AtomicEth a when opcode.operation() == Operation.FETCH_ADD ->
                    format(ROOT, "va=0x%016x rkey=0x%08x add=0x%016x", a.virtualAddress(), a.rkey(), a.swapOrAddData());
            case CnpReserved c -> null;
            default -> fields(header, opcode);
        };
    }

    /** Every field, for {@code --verbose}. */
    static String verbose(ExtensionHeader header, Opcode opcode) {
        return switch (header) {
            case Aeth a -> format(ROOT, "syndrome=0x%02x ", a.syndromeByte()) + fields(a, opcode);
            case CnpReserved c -> format(ROOT, "reserved=0x%016x%016x", c.high(), c.low());
            default -> fields(header, opcode);
        };
    }

    private static String fields(ExtensionHeader header, Opcode opcode) {
        return switch (header) {
            case Rdeth r -> format(ROOT, "EEC=0x%06x", r.eeContext());
            case Deth d -> format(ROOT, "qkey=0x%08x srcQP=0x%06x", d.qkey(), d.sourceQp());
            case Xrceth x -> format(ROOT, "SRQ=0x%06x", x.xrcSrq());
            case Feth f -> format(ROOT, "sel=%d placement=%d", f.selectivityLevel(), f.placementType());
            case Reth r -> format(ROOT, "va=0x%016x rkey=0x%08x len=%d", r.virtualAddress(), r.rkey(), r.dmaLengthUnsigned());
            case AtomicEth a -> format(ROOT, "va=0x%016x rkey=0x%08x %s=0x%016x compare=0x%016x",
                    a.virtualAddress(), a.rkey(), opcode.operation() == Operation.FETCH_ADD ? "add" : "swap",
                    a.swapOrAddData(), a.compareData());
            case Aeth a -> syndrome(a.syndrome()) + format(ROOT, " MSN=%d", a.msn());
            case AtomicAckEth a -> format(ROOT, "orig=0x%016x", a.originalData());
            case ImmDt i -> format(ROOT, "imm=0x%08x", i.immediateData());
            case Ieth i -> format(ROOT, "rkey=0x%08x", i.rkey());
            case CnpReserved c -> "";
        };
    }

    /** The AETH syndrome as IBTA §9.3.6 reads it: ACK credits, RNR NAK timer, or NAK code. */
    static String syndrome(AethSyndrome syndrome) {
        return switch (syndrome) {
            case AethSyndrome.Ack ack -> "ACK credits=" + ack.creditCount();
            case AethSyndrome.RnrNak rnr -> "RNR NAK timer=" + rnr.timerCode() + " (" + milliseconds(rnr.delayNanos()) + ")";
            case AethSyndrome.Nak nak -> nak.code() == null
                    ? "NAK reserved code=" + nak.value()
                    : "NAK " + nak.code().description();
            case AethSyndrome.Reserved reserved -> format(ROOT, "reserved syndrome=0x%02x", reserved.syndrome());
        };
    }

    /** The RNR delays of IBTA table 45 are whole multiples of 10 µs: two decimals are exact. */
    private static String milliseconds(long nanos) {
        long hundredths = nanos / 10_000;
        return format(ROOT, "%d.%02d ms", hundredths / 100, hundredths % 100);
    }

    private static int bit(boolean value) {
        return value ? 1 : 0;
    }
}
