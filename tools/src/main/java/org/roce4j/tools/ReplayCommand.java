package org.roce4j.tools;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.locks.LockSupport;
import org.roce4j.tools.LiveInterface.LiveCaptureException;
import org.roce4j.wire.RoceDecoder;
import org.roce4j.wire.pcap.CaptureReader;
import org.roce4j.wire.pcap.CaptureWriter;
import org.roce4j.wire.pcap.CapturedPacket;
import org.roce4j.wire.pcap.LinkType;
import org.roce4j.wire.pcap.PcapRecord;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code roce4j replay FILE -i IFACE [--rewrite ...] [--pps N] [--keep-bad-icrc]}: a capture's RoCEv2 frames, sent again. */
@Command(name = "replay",
        description = {
            "Sends the RoCEv2 frames of a capture (pcap or pcapng) onto a network interface, in file order (libpcap's"
                    + " pcap_sendpacket through pcap4j; needs root or CAP_NET_RAW and libpcap, Debian's libpcap0.8), after"
                    + " rewriting addresses, QP numbers and PSNs as --rewrite says. The IP and UDP lengths, the IPv4 header"
                    + " checksum, the UDP checksum (when the frame had one) and the ICRC are computed again for what the frame"
                    + " now says. Frames that are not RoCEv2 (ARP, TCP, malformed RoCE) are not sent. Each frame sent is"
                    + " printed as roce4j decode prints it, decoded again from the bytes that went out.",
            "See docs/capture-and-replay.md.",
            ""},
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {
            "0:every RoCEv2 frame of the capture was sent",
            "2:usage error (a bad --rewrite), the capture cannot be read, or the interface cannot be opened or refused a frame",
            "3:internal error"})
final class ReplayCommand implements Callable<Integer> {
    @Parameters(paramLabel = "FILE", description = "the capture: classic pcap or pcapng, Ethernet frames")
    private Path capture;

    @Option(names = {"-i", "--interface"}, paramLabel = "IFACE", description = "the interface to send on")
    private String iface;

    @Option(names = {"-w", "--write"}, paramLabel = "OUT", description = "also (or, without -i, only) write the frames as they would be sent to OUT (pcapng when its name ends in .pcapng)")
    private Path out;

    @Option(names = "--rewrite", paramLabel = "RULES", description = "src-mac=MAC,dst-mac=MAC,src-ip=IP,dst-ip=IP,qpn=0xOLD:0xNEW,psn=+N (each part optional; qpn= may repeat;"
            + " qpn changes the BTH destination QP and a DETH source QP equal to OLD; psn shifts every PSN, modulo 2^24, by +N or -N)")
    private List<String> rewrites = List.of();

    @Option(names = "--pps", paramLabel = "N", description = "send at most N frames per second (default: as fast as libpcap takes them)")
    private long framesPerSecond;

    @Option(names = "--keep-bad-icrc", description = "a frame captured with a bad ICRC is sent with a bad ICRC, wrong by the same bits"
            + " (without it every frame goes out with a good ICRC)")
    private boolean keepBadIcrc;

    @Option(names = {"-v", "--verbose"}, description = "also print every header field and the first 64 payload bytes of each frame sent")
    private boolean verbose;

    @Option(names = {"-h", "--help"}, usageHelp = true, description = "show this help and exit")
    private boolean help;

    @Spec
    private CommandSpec spec;

    @Override
    public Integer call() {
        if (iface == null && out == null) {
            throw new ParameterException(spec.commandLine(), "nowhere to send: give -i IFACE, -w OUT or both");
        }
        if (framesPerSecond < 0) {
            throw new ParameterException(spec.commandLine(), "--pps cannot be negative");
        }
        RewriteRules rules;
        try {
            rules = RewriteRules.parse(rewrites);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), "--rewrite: " + e.getMessage());
        }
        PrintWriter text = spec.commandLine().getOut();
        text.println("replaying " + capture + (iface == null ? "" : " on " + iface) + (out == null ? "" : " into " + out)
                + ", rewrite: " + rules + (keepBadIcrc ? ", bad ICRCs kept bad" : ""));
        try (CaptureReader reader = CaptureReader.open(capture);
             LiveInterface live = iface == null ? null : LiveInterface.open(iface, "");
             CaptureWriter writer = out == null ? null : CaptureWriter.create(out)) {
            return replay(reader, Optional.ofNullable(live), Optional.ofNullable(writer), new FrameRewriter(rules, keepBadIcrc), text);
        } catch (LiveCaptureException e) {
            return Roce4j.fail(spec, e.getMessage());
        } catch (IllegalArgumentException e) { // a rule that cannot apply to a frame: an IPv4 address in IPv6
            return Roce4j.fail(spec, "--rewrite: " + e.getMessage());
        } catch (IOException e) {
            return Roce4j.failToRead(spec, capture, e);
        }
    }

    private int replay(CaptureReader reader, Optional<LiveInterface> live, Optional<CaptureWriter> writer,
                       FrameRewriter rewriter, PrintWriter text) throws IOException, LiveCaptureException {
        FramePrinter printer = new FramePrinter(text, verbose);
        RoceDecoder check = new RoceDecoder(); // the bytes that leave, decoded again: the printed verdict is theirs
        long read = 0;
        long sent = 0;
        long sentBad = 0;
        long skipped = 0;
        long start = System.nanoTime();
        for (Optional<CapturedPacket> next = reader.read(); next.isPresent(); next = reader.read()) {
            CapturedPacket packet = next.get();
            read++;
            if (!packet.linkType().equals(LinkType.ETHERNET)) {
                text.println("frame " + read + " not sent: link type " + packet.linkType().value() + ", not Ethernet");
                skipped++;
                continue;
            }
            switch (rewriter.rewrite(packet.data())) {
                case FrameRewriter.Outcome.NotRewritable not -> {
                    text.println("frame " + read + " not sent: " + not.why());
                    skipped++;
                }
                case FrameRewriter.Outcome.Rewritten rewritten -> {
                    if (framesPerSecond > 0) { // frame k leaves no earlier than start + k / pps
                        long due = start + sent * 1_000_000_000L / framesPerSecond;
                        for (long wait = due - System.nanoTime(); wait > 0; wait = due - System.nanoTime()) {
                            LockSupport.parkNanos(wait);
                        }
                    }
                    byte[] frame = rewritten.frame();
                    if (live.isPresent()) {
                        live.get().send(frame);
                    }
                    long now = System.currentTimeMillis() * 1_000_000L;
                    if (writer.isPresent()) {
                        writer.get().write(now, frame, 0, frame.length, List.of());
                    }
                    sent++;
                    sentBad += rewritten.badIcrc() ? 1 : 0;
                    printer.print(read, 0, new PcapRecord(now, frame.length, frame), check.decode(frame));
                }
            }
        }
        text.println("sent " + sent + " of " + read + " frames (" + sentBad + " with a bad ICRC kept), " + skipped + " not sent");
        return 0;
    }
}
