package org.roce4j.testkit;

import static java.lang.String.format;
import static java.util.Locale.ROOT;

import java.net.Inet6Address;
import java.net.InetAddress;

import org.roce4j.wire.Aeth;
import org.roce4j.wire.AethSyndrome;
import org.roce4j.wire.AtomicAckEth;
import org.roce4j.wire.AtomicEth;
import org.roce4j.wire.Bth;
import org.roce4j.wire.CnpReserved;
import org.roce4j.wire.DecodeResult;
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
import org.roce4j.wire.RoceFrame;
import org.roce4j.wire.RocePacket;
import org.roce4j.wire.Xrceth;

/**
 * One frame as one line of {@code roce4j decode}: number, time since the first frame, addresses,
 * opcode, QP, PSN, the key fields of each header, payload length, ICRC verdict. The same text as
 * the tools' {@code FramePrinter} summary (which the testkit cannot use: tools is a command line).
 */
final class FrameLines {
    private FrameLines() {
    }

    /** The summary line of frame {@code number} (from 1), captured {@code relativeNanos} after the first. */
    static String line(long number, long relativeNanos, DecodeResult result) {
        String prefix = number + " " + seconds(relativeNanos) + " ";
        return switch (result) {
            case DecodeResult.Decoded decoded -> prefix + summary(decoded.frame()) + " ICRC ok";
            case DecodeResult.Dropped dropped when dropped.parsed().isPresent() ->
                    prefix + summary(dropped.parsedFrame()) + " ICRC BAD";
            case DecodeResult.Dropped dropped when !dropped.reason().isRoce() ->
                    prefix + "non-RoCE (" + dropped.detail() + ")";
            case DecodeResult.Dropped dropped -> prefix + "malformed RoCE (" + dropped.reason() + ": " + dropped.detail() + ")";
        };
    }

    /** Seconds with nine decimals, like tshark's relative time column. */
    static String seconds(long nanos) {
        long magnitude = Math.abs(nanos);
        return format(ROOT, "%s%d.%09d", nanos < 0 ? "-" : "", magnitude / 1_000_000_000L, magnitude % 1_000_000_000L);
    }

    private static String summary(RoceFrame frame) {
        RocePacket packet = frame.packet();
        Bth bth = packet.bth();
        Opcode opcode = bth.opcode();
        StringBuilder line = new StringBuilder()
                .append(address(frame.ip().source())).append(" → ").append(address(frame.ip().destination()))
                .append(' ').append(opcode.displayName())
                .append(format(ROOT, " QP=0x%06x PSN=%d", bth.destQp(), bth.psn()));
        for (ExtensionHeader header : packet.headers()) {
            String fields = fields(header, opcode);
            if (fields != null) {
                line.append(' ').append(name(header.type())).append('(').append(fields).append(')');
            }
        }
        if (bth.fecn()) {
            line.append(" FECN");
        }
        if (bth.becn()) {
            line.append(" BECN");
        }
        frame.ethernet().vlan().ifPresent(vlan -> line.append(" VLAN=").append(vlan.vlanId()));
        if (opcode.carriesPayload()) {
            line.append(" payload=").append(packet.payloadLength());
        }
        return line.toString();
    }

    private static String name(HeaderType type) {
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
            case CNP_RESERVED -> "CNP";
        };
    }

    /** The fields the summary shows; a Fetch Add has no compare value (IBTA §9.3.5), a CNP's reserved bytes none. */
    private static String fields(ExtensionHeader header, Opcode opcode) {
        return switch (header) {
            case Rdeth r -> format(ROOT, "EEC=0x%06x", r.eeContext());
            case Deth d -> format(ROOT, "qkey=0x%08x srcQP=0x%06x", d.qkey(), d.sourceQp());
            case Xrceth x -> format(ROOT, "SRQ=0x%06x", x.xrcSrq());
            case Feth f -> format(ROOT, "sel=%d placement=%d", f.selectivityLevel(), f.placementType());
            case Reth r -> format(ROOT, "va=0x%016x rkey=0x%08x len=%d", r.virtualAddress(), r.rkey(), r.dmaLengthUnsigned());
            case AtomicEth a when opcode.operation() == Operation.FETCH_ADD ->
                    format(ROOT, "va=0x%016x rkey=0x%08x add=0x%016x", a.virtualAddress(), a.rkey(), a.swapOrAddData());
            case AtomicEth a -> format(ROOT, "va=0x%016x rkey=0x%08x swap=0x%016x compare=0x%016x",
                    a.virtualAddress(), a.rkey(), a.swapOrAddData(), a.compareData());
            case Aeth a -> syndrome(a.syndrome()) + format(ROOT, " MSN=%d", a.msn());
            case AtomicAckEth a -> format(ROOT, "orig=0x%016x", a.originalData());
            case ImmDt i -> format(ROOT, "imm=0x%08x", i.immediateData());
            case Ieth i -> format(ROOT, "rkey=0x%08x", i.rkey());
            case CnpReserved c -> null;
        };
    }

    /** The AETH syndrome as IBTA §9.3.6 reads it: ACK credits, RNR NAK timer, or NAK code. */
    private static String syndrome(AethSyndrome syndrome) {
        return switch (syndrome) {
            case AethSyndrome.Ack ack -> "ACK credits=" + ack.creditCount();
            case AethSyndrome.RnrNak rnr -> {
                long hundredths = rnr.delayNanos() / 10_000;
                yield "RNR NAK timer=" + rnr.timerCode() + format(ROOT, " (%d.%02d ms)", hundredths / 100, hundredths % 100);
            }
            case AethSyndrome.Nak nak -> nak.code() == null
                    ? "NAK reserved code=" + nak.value()
                    : "NAK " + nak.code().description();
            case AethSyndrome.Reserved reserved -> format(ROOT, "reserved syndrome=0x%02x", reserved.syndrome());
        };
    }

    /** IPv4 dotted; IPv4-mapped IPv6 as {@code ::ffff:a.b.c.d}; other IPv6 as Java prints it. */
    static String address(InetAddress address) {
        if (address instanceof Inet6Address) {
            byte[] b = address.getAddress();
            boolean mapped = true;
            for (int i = 0; i < 10; i++) {
                mapped &= b[i] == 0;
            }
            if (mapped && b[10] == (byte) 0xFF && b[11] == (byte) 0xFF) {
                return "::ffff:" + (b[12] & 0xFF) + "." + (b[13] & 0xFF) + "." + (b[14] & 0xFF) + "." + (b[15] & 0xFF);
            }
        }
        return address.getHostAddress();
    }
}
