package org.roce4j.tools;

import static java.lang.String.format;
import static java.util.Locale.ROOT;

import java.io.PrintWriter;
import org.roce4j.wire.DecodeResult;
import org.roce4j.wire.EthernetHeader;
import org.roce4j.wire.ExtensionHeader;
import org.roce4j.wire.FrameText;
import org.roce4j.wire.HeaderType;
import org.roce4j.wire.IbDecodeResult;
import org.roce4j.wire.IbFrame;
import org.roce4j.wire.IcrcStatus;
import org.roce4j.wire.Ipv4Header;
import org.roce4j.wire.Ipv6Header;
import org.roce4j.wire.RoceFrame;
import org.roce4j.wire.RocePacket;
import org.roce4j.wire.UdpHeader;
import org.roce4j.wire.VcrcStatus;
import org.roce4j.wire.pcap.PcapRecord;

/**
 * Writes what {@code roce4j decode} says about one frame: a summary line in the spirit of tshark's
 * (number, time, addresses, opcode, QP, PSN, the key fields of each header, payload length, ICRC
 * verdict) and, with {@code --verbose}, every header field and the start of the payload.
 */
final class FramePrinter {
    /** How much of a payload (or of a malformed frame) {@code --verbose} dumps. */
    static final int DUMP_BYTES = 64;
    static final String INDENT = "    ";

    private final PrintWriter out;
    private final boolean verbose;
    private final NonRoceTraffic nonRoce = new NonRoceTraffic();

    FramePrinter(PrintWriter out, boolean verbose) {
        this.out = out;
        this.verbose = verbose;
    }

    /** Prints frame {@code number} (from 1), captured {@code relativeNanos} after the first one. */
    void print(long number, long relativeNanos, PcapRecord record, DecodeResult result) {
        String prefix = number + " " + FrameText.seconds(relativeNanos) + " ";
        String capture = record.truncated()
                ? format(ROOT, " [captured %d of %d bytes]", record.data().length, record.originalLength())
                : "";
        switch (result) {
            case DecodeResult.Decoded decoded -> {
                out.println(prefix + FrameText.summary(decoded.frame()) + " ICRC ok" + capture);
                FrameText.cmLine(decoded.frame()).ifPresent(line -> out.println(INDENT + line));
                if (verbose) {
                    details(decoded.frame());
                    out.println(INDENT + format(ROOT, "ICRC 0x%08x ok", decoded.icrc()));
                }
            }
            case DecodeResult.Dropped dropped when dropped.parsed().isPresent() -> {
                // Only a bad ICRC leaves a parsed frame behind: show what the frame says.
                out.println(prefix + FrameText.summary(dropped.parsedFrame()) + " ICRC BAD" + capture);
                FrameText.cmLine(dropped.parsedFrame()).ifPresent(line -> out.println(INDENT + line));
                if (verbose) {
                    details(dropped.parsedFrame());
                    out.println(INDENT + "ICRC BAD: " + dropped.detail());
                }
            }
            case DecodeResult.Dropped dropped when !dropped.reason().isRoce() ->
                    out.println(prefix + "non-RoCE (" + nonRoce.kind(record.data()) + ": " + dropped.detail() + ")" + capture);
            case DecodeResult.Dropped dropped -> {
                out.println(prefix + "malformed RoCE (" + dropped.reason() + ": " + dropped.detail() + ")" + capture);
                if (verbose) {
                    dump("frame", record.data());
                }
            }
        }
    }

    /** Prints a RoCEv1 frame or InfiniBand packet as {@link #print(long, long, PcapRecord, DecodeResult)} prints RoCEv2. */
    void print(long number, long relativeNanos, PcapRecord record, IbDecodeResult result) {
        String prefix = number + " " + FrameText.seconds(relativeNanos) + " ";
        switch (result) {
            case IbDecodeResult.Decoded decoded -> {
                out.println(prefix + FrameText.summary(decoded.frame()) + " ICRC ok"
                        + (decoded.vcrc() == VcrcStatus.VALID ? " VCRC ok" : ""));
                if (verbose) {
                    ibDetails(decoded.frame());
                }
            }
            case IbDecodeResult.Dropped dropped when dropped.parsed().isPresent() -> {
                out.println(prefix + FrameText.summary(dropped.parsedFrame())
                        + (dropped.icrc() == IcrcStatus.VALID ? " ICRC ok" : " ICRC BAD")
                        + switch (dropped.vcrc()) {
                            case VALID -> " VCRC ok";
                            case INVALID -> " VCRC BAD";
                            case ABSENT -> "";
                        });
                if (verbose) {
                    ibDetails(dropped.parsedFrame());
                    out.println(INDENT + dropped.detail());
                }
            }
            case IbDecodeResult.Dropped dropped when !dropped.reason().isRoce() ->
                    out.println(prefix + "non-transport (" + dropped.detail() + ")");
            case IbDecodeResult.Dropped dropped -> {
                out.println(prefix + "malformed ("  + dropped.reason() + ": " + dropped.detail() + ")");
                if (verbose) {
                    dump("frame", record.data());
                }
            }
        }
    }

    private void ibDetails(IbFrame frame) {
        frame.ethernet().ifPresent(ethernet -> out.println(INDENT + "Ethernet " + ethernet.source() + " → "
                + ethernet.destination() + format(ROOT, " type=0x%04x", ethernet.etherType())));
        frame.lrh().ifPresent(lrh -> out.println(INDENT + format(ROOT, "LRH VL=%d SL=%d DLID=0x%04x SLID=0x%04x",
                lrh.virtualLane(), lrh.serviceLevel(), lrh.destinationLid(), lrh.sourceLid())));
        frame.grh().ifPresent(grh -> out.println(INDENT + format(ROOT, "GRH %s → %s TClass=%d flow=0x%05x hop=%d",
                FrameText.address(grh.sourceGid()), FrameText.address(grh.destinationGid()), grh.trafficClass(),
                grh.flowLabel(), grh.hopLimit())));
        transportDetails(frame.packet());
    }

    private void details(RoceFrame frame) {
        EthernetHeader ethernet = frame.ethernet();
        out.println(INDENT + "Ethernet " + ethernet.source() + " → " + ethernet.destination()
                + ethernet.vlan().map(v -> format(ROOT, " VLAN=%d PCP=%d DEI=%d", v.vlanId(), v.priority(), v.dropEligible() ? 1 : 0)).orElse("")
                + format(ROOT, " type=0x%04x", ethernet.etherType()));
        String addresses = FrameText.address(frame.ip().source()) + " → " + FrameText.address(frame.ip().destination());
        out.println(INDENT + switch (frame.ip()) {
            case Ipv4Header ip -> format(ROOT, "IPv4 %s DSCP=%d ECN=%d ID=0x%04x DF=%d TTL=%d",
                    addresses, ip.dscp(), ip.ecn(), ip.identification(), ip.dontFragment() ? 1 : 0, ip.ttl());
            case Ipv6Header ip -> format(ROOT, "IPv6 %s DSCP=%d ECN=%d flow=0x%05x hop=%d",
                    addresses, ip.dscp(), ip.ecn(), ip.flowLabel(), ip.hopLimit());
        });
        UdpHeader udp = frame.udp();
        out.println(INDENT + format(ROOT, "UDP %d → %d checksum=0x%04x", udp.sourcePort(), udp.destinationPort(), udp.checksum()));
        transportDetails(frame.packet());
    }

    private void transportDetails(RocePacket packet) {
        out.println(INDENT + FrameText.headerName(HeaderType.BTH) + " " + FrameText.bth(packet.bth()));
        for (ExtensionHeader header : packet.headers()) {
            out.println(INDENT + FrameText.headerName(header.type()) + " " + FrameText.verboseFields(header, packet.opcode()));
        }
        if (packet.opcode().carriesPayload()) {
            dump("payload", packet.payload());
        }
    }

    private void dump(String what, byte[] bytes) {
        String shown = bytes.length > DUMP_BYTES ? " (first " + DUMP_BYTES + ")" : "";
        out.println(INDENT + what + " " + bytes.length + " bytes" + shown + (bytes.length == 0 ? "" : ":"));
        for (String line : HexDump.lines(bytes, DUMP_BYTES)) {
            out.println(INDENT + "  " + line);
        }
    }
}
