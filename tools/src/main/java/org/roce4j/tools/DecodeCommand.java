package org.roce4j.tools;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import org.roce4j.wire.DecodeCounters;
import org.roce4j.wire.EthernetHeader;
import org.roce4j.wire.IbDecoder;
import org.roce4j.wire.DropReason;
import org.roce4j.wire.RoceDecoder;
import org.roce4j.wire.pcap.LinkType;
import org.roce4j.wire.pcap.CaptureReader;
import org.roce4j.wire.pcap.CapturedPacket;
import org.roce4j.wire.pcap.ErfInfiniband;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code roce4j decode FILE.pcap|FILE.pcapng [--verbose]}: one line per frame, then the counts. */
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

    @Option(names = {"-h", "--help"}, usageHelp = true, description = "show this help and exit")
    private boolean help;

    @Spec
    private CommandSpec spec;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        RoceDecoder decoder = new RoceDecoder();
        IbDecoder ibDecoder = new IbDecoder(decoder.counters()); // one count of every frame
        boolean listing = false;
        try (CaptureReader reader = CaptureReader.open(file)) {
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
                if (infiniband.isPresent()) {
                    printer.print(number, relative, packet.toPcapRecord(), ibDecoder.decodeInfiniband(infiniband.get()));
                } else if (EthernetHeader.etherTypeOf(packet.data()) == EthernetHeader.ETHERTYPE_ROCE_V1) {
                    printer.print(number, relative, packet.toPcapRecord(), ibDecoder.decodeRoceV1(packet.data()));
                } else {
                    printer.print(number, relative, packet.toPcapRecord(), decoder.decode(packet.data()));
                }
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
        printCounts(out, counters);
        return counters.roce() == counters.accepted() ? 0 : 1;
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
