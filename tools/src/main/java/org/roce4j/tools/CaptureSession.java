package org.roce4j.tools;

import java.io.IOException;
import java.io.PrintWriter;
import java.util.List;
import java.util.Optional;
import org.roce4j.tools.analyze.CaptureAnalysis;
import org.roce4j.wire.DecodeCounters;
import org.roce4j.wire.DecodeResult;
import org.roce4j.wire.RoceDecoder;
import org.roce4j.wire.pcap.CaptureWriter;
import org.roce4j.wire.pcap.CapturedPacket;
import org.roce4j.wire.pcap.LinkType;
import org.roce4j.wire.pcap.PcapRecord;

/**
 * What {@code roce4j capture} does with each frame as it arrives, wherever it came from: decodes it once
 * and verifies its ICRC ({@link RoceDecoder}), prints it as {@code roce4j decode} does ({@link FramePrinter}),
 * counts it per QP ({@link QpTraffic}), writes it to the capture file and hands it to the analysis, when
 * there are those. Not thread-safe.
 */
final class CaptureSession {
    private final PrintWriter out;
    private final FramePrinter printer;
    private final RoceDecoder decoder = new RoceDecoder();
    private final QpTraffic traffic = new QpTraffic();
    private final Optional<CaptureWriter> file;
    private final Optional<CaptureAnalysis> analysis;
    private long frames;
    private long firstTimestamp;

    CaptureSession(PrintWriter out, boolean verbose, Optional<CaptureWriter> file, Optional<CaptureAnalysis> analysis) {
        this.out = out;
        this.printer = new FramePrinter(out, verbose);
        this.file = file;
        this.analysis = analysis;
    }

    /** Takes the next captured frame (an Ethernet frame). */
    void accept(PcapRecord record) throws IOException {
        if (frames++ == 0) {
            firstTimestamp = record.timestampNanos();
        }
        DecodeResult result = decoder.decode(record.data());
        printer.print(frames, record.timestampNanos() - firstTimestamp, record, result);
        traffic.count(record.originalLength(), result);
        if (file.isPresent()) {
            file.get().write(record.timestampNanos(), record.data(), 0, record.data().length, List.of());
        }
        analysis.ifPresent(a -> a.accept(new CapturedPacket(0, LinkType.ETHERNET, record.timestampNanos(),
                record.originalLength(), record.data(), List.of())));
    }

    /** {@return the frames taken so far} */
    long frames() {
        return frames;
    }

    /** Prints the per-QP summary now, under "summary after N frames:" or {@code heading}. */
    void printSummary(String heading) {
        traffic.print(out, heading);
    }

    QpTraffic traffic() {
        return traffic;
    }

    DecodeCounters counters() {
        return decoder.counters();
    }

    /** {@return whether every RoCE frame so far was well formed with a good ICRC} */
    boolean allGood() {
        return counters().roce() == counters().accepted();
    }
}
