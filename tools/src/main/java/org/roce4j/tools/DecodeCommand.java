package org.roce4j.tools;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import org.roce4j.wire.DecodeCounters;
import org.roce4j.wire.DecodeResult;
import org.roce4j.wire.Deth;
import org.roce4j.wire.DropReason;
import org.roce4j.wire.EthernetHeader;
import org.roce4j.wire.IbDecodeResult;
import org.roce4j.wire.IbDecoder;
import org.roce4j.wire.IbFrame;
import org.roce4j.wire.RoceDecoder;
import org.roce4j.wire.RoceFrame;
import org.roce4j.wire.RocePacket;
import org.roce4j.wire.ladder.QpPeers;
import org.roce4j.wire.pcap.CaptureReader;
import org.roce4j.wire.pcap.CapturedPacket;
import org.roce4j.wire.pcap.ErfInfiniband;
import org.roce4j.wire.pcap.LinkType;
import picocli.CommandLine.Command;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code roce4j decode FILE.pcap|FILE.pcapng [--verbose] [--qp QPN] [--class CLASS,...] [--psn FIRST-LAST]}:
 * one line per frame (the ones the filters let through), then the counts of every frame.
 */
@Command(name = "decode",
        description = {
            "Lists the frames of a capture (pcap or pcapng) as RoCEv2, RoCEv1 or InfiniBand, then counts them.",
            "",
            "One line per frame: number, seconds since the first frame, addresses, opcode, QP, PSN, the"
                    + " key fields of each header, payload length and ICRC verdict (RoCEv1 and InfiniBand lines start with"
                    + " RoCEv1 or IB; InfiniBand's also give the VCRC verdict; InfiniBand is read from link type 247 or"
                    + " from ERF records, as ibdump writes it). Frames that are not"
                    + " RoCEv2 (ARP, TCP, other UDP ports) get a short line and do not fail the run;"
                    + " malformed RoCEv2 frames get their drop reason. Then: counts of frames, RoCE frames,"
                    + " ICRC failures and drops by reason.",
            "",
            "Filters (--qp, --class, --psn) choose which frames are listed; each one given must match, several"
                    + " values of one are alternatives. The counts and the exit code still cover every frame.",
            ""},
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {
            "0:every RoCE frame is well formed and has a good ICRC",
            "1:some RoCE frame is malformed or has a bad ICRC",
            "2:usage error, or the file cannot be read as a pcap or pcapng capture",
            "3:internal error"})
final class DecodeCommand implements Callable<Integer> {
    @Parameters(paramLabel = "FILE", description = "the capture: classic pcap (micro- or nanosecond timestamps) or pcapng (as Wireshark, tshark and dumpcap write it; its comments are printed)")
    private Path file;

    @Option(names = {"-v", "--verbose"}, description = "also print every header field and the first 64 payload bytes")
    private boolean verbose;

    @Option(names = "--qp", paramLabel = "QPN", converter = PingpongCommand.CNumber.class,
            description = "list only the frames to or from this QP (0x11 or 17; repeat for more): the requests it gets"
                    + " and the responses it sends, and those of its peer to it")
    private List<Integer> qps = new ArrayList<>();

    @Option(names = "--class", paramLabel = "CLASS", split = ",", converter = OpcodeClassConverter.class,
            description = "list only these opcode classes, comma-separated: send, write, read, atomic, ack, nak, cnp,"
                    + " flush, atomic-write, cm")
    private List<DecodeFilter.OpcodeClass> classes = new ArrayList<>();

    @Option(names = "--psn", paramLabel = "FIRST[-LAST]", converter = PsnRangeConverter.class,
            description = "list only the frames whose BTH PSN is in this range, both ends included (0x10-0x20, 16-32,"
                    + " or one PSN; repeat for more)")
    private List<DecodeFilter.PsnRange> psns = new ArrayList<>();

    @Option(names = {"-h", "--help"}, usageHelp = true, description = "show this help and exit")
    private boolean help;

    @Spec
    private CommandSpec spec;

    static final class OpcodeClassConverter implements ITypeConverter<DecodeFilter.OpcodeClass> {
        @Override
        public DecodeFilter.OpcodeClass convert(String value) {
            return DecodeFilter.OpcodeClass.parse(value);
        }
    }

    static final class PsnRangeConverter implements ITypeConverter<DecodeFilter.PsnRange> {
        @Override
        public DecodeFilter.PsnRange convert(String value) {
            return DecodeFilter.PsnRange.parse(value);
        }
    }

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        DecodeFilter filter;
        try {
            filter = new DecodeFilter(qps, classes, psns);
        } catch (IllegalArgumentException e) {
            return Roce4j.fail(spec, e.getMessage());
        }
        RoceDecoder decoder = new RoceDecoder();
        IbDecoder ibDecoder = new IbDecoder(decoder.counters()); // one count of every frame
        boolean listing = false;
        long shown = 0;
        try (CaptureReader reader = CaptureReader.open(file)) {
            QpPeers peers = filter.byQp() ? learnPeers() : null;
            listing = true;
            FramePrinter printer = new FramePrinter(out, verbose);
            long number = 0;
            long firstTimestamp = 0;
            for (Optional<CapturedPacket> next = reader.read(); next.isPresent(); next = reader.read()) {
                CapturedPacket packet = next.get();
                Optional<byte[]> infiniband = infinibandPacket(packet);
                if (!packet.linkType().equals(LinkType.ETHERNET) && infiniband.isEmpty()) {
                    printCounts(out, decoder.counters());
                    return Roce4j.fail(spec, file + ": packet " + (number + 1) + " has link type "
                            + packet.linkType().value() + ", not Ethernet (1), InfiniBand (247) nor ERF InfiniBand (197)");
                }
                if (number++ == 0) {
                    firstTimestamp = packet.timestampNanos();
                }
                long relative = packet.timestampNanos() - firstTimestamp;
                if (infiniband.isPresent() || EthernetHeader.etherTypeOf(packet.data()) == EthernetHeader.ETHERTYPE_ROCE_V1) {
                    IbDecodeResult result = infiniband.isPresent() ? ibDecoder.decodeInfiniband(infiniband.get())
                            : ibDecoder.decodeRoceV1(packet.data());
                    RocePacket transport = transportOf(result);
                    if (!filter.shows(transport, transport == null ? -1 : datagramSource(transport))) {
                        continue;
                    }
                    printer.print(number, relative, packet.toPcapRecord(), result);
                } else {
                    DecodeResult result = decoder.decode(packet.data());
                    RoceFrame frame = frameOf(result);
                    if (!filter.shows(frame == null ? null : frame.packet(), sourceQp(frame, peers))) {
                        continue;
                    }
                    printer.print(number, relative, packet.toPcapRecord(), result);
                }
                shown++;
                for (String comment : packet.comments()) { // pcapng opt_comment, e.g. what a fault rule did
                    out.println(FramePrinter.INDENT + "comment: " + comment);
                }
            }
        } catch (IOException e) {
            if (listing) { // the frames before a damaged record are listed: count them too
                printCounts(out, decoder.counters());
            }
            return Roce4j.failToRead(spec, file, e);
        }
        DecodeCounters counters = decoder.counters();
        if (filter.any()) {
            out.println("frames shown:          " + shown + " (" + filter.describe() + ")");
        }
        printCounts(out, counters);
        return counters.roce() == counters.accepted() ? 0 : 1;
    }

    /**
     * The first of two passes when a QP filter is given: an RC frame names only its destination QP,
     * so which QP sent it is learnt from the whole capture (the frames coming back).
     */
    private QpPeers learnPeers() throws IOException {
        QpPeers peers = new QpPeers();
        RoceDecoder decoder = new RoceDecoder();
        try (CaptureReader reader = CaptureReader.open(file)) {
            for (Optional<CapturedPacket> next = reader.read(); next.isPresent(); next = reader.read()) {
                if (next.get().linkType().equals(LinkType.ETHERNET)) {
                    RoceFrame frame = frameOf(decoder.decode(next.get().data()));
                    if (frame != null) {
                        peers.observe(frame);
                    }
                }
            }
        }
        return peers;
    }

    /** The frame a RoCEv2 result holds: decoded, or parsed before its ICRC failed; null for anything else. */
    private static RoceFrame frameOf(DecodeResult result) {
        return switch (result) {
            case DecodeResult.Decoded decoded -> decoded.frame();
            case DecodeResult.Dropped dropped -> dropped.parsedFrame();
        };
    }

    private static RocePacket transportOf(IbDecodeResult result) {
        return switch (result) {
            case IbDecodeResult.Decoded decoded -> decoded.frame().packet();
            case IbDecodeResult.Dropped dropped -> dropped.parsed().map(IbFrame::packet).orElse(null);
        };
    }

    private static int sourceQp(RoceFrame frame, QpPeers peers) {
        if (frame == null) {
            return -1;
        }
        return peers != null ? peers.source(frame).qpn() : datagramSource(frame.packet());
    }

    /** A datagram's sender, from its DETH (IBTA 9.3.3); -1 for the other transports. */
    private static int datagramSource(RocePacket packet) {
        return packet.header(Deth.class).map(Deth::sourceQp).orElse(-1);
    }

    /** The InfiniBand packet a record holds: the whole record (link type 247), or an ERF InfiniBand record's (197, ibdump). */
    private static Optional<byte[]> infinibandPacket(CapturedPacket packet) {
        if (packet.linkType().equals(LinkType.INFINIBAND)) {
            return Optional.of(packet.data());
        }
        return packet.linkType().equals(LinkType.ERF) ? ErfInfiniband.unwrap(packet.data()) : Optional.empty();
    }

    static void printCounts(PrintWriter out, DecodeCounters counters) {
        long icrcFailures = counters.dropped(DropReason.BAD_ICRC);
        Map<DropReason, Long> drops = counters.drops();
        out.println("frames:                " + counters.total());
        out.println("RoCE frames:           " + counters.roce());
        out.println("ICRC failures:         " + icrcFailures);
        out.println("malformed RoCE frames: " + (counters.roce() - counters.accepted() - icrcFailures));
        out.println("non-RoCE frames:       " + (counters.total() - counters.roce()));
        out.println("drops by reason:       " + (drops.isEmpty() ? "none" : drops.entrySet().stream()
                .map(e -> e.getKey() + "=" + e.getValue()).collect(Collectors.joining(", "))));
    }
}
