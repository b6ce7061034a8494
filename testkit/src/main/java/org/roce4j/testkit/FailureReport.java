package org.roce4j.testkit;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import org.roce4j.emulator.fabric.Faults;
import org.roce4j.wire.DecodeResult;
import org.roce4j.wire.FrameText;
import org.roce4j.wire.RoceDecoder;
import org.roce4j.wire.RoceFrame;
import org.roce4j.wire.ladder.CaptureLadder;
import org.roce4j.wire.ladder.Ladder;
import org.roce4j.wire.ladder.LadderSvg;
import org.roce4j.wire.pcap.CaptureReader;
import org.roce4j.wire.pcap.CapturedPacket;

/**
 * What a failed test leaves for the person reading the build log: the seed that replays it, where
 * its capture is and its ladder diagram beside it, the fault plan, the rdma_cm events the nodes raised, and the last frames to each
 * QP, one line each as {@code roce4j decode} prints them.
 */
final class FailureReport {
    /** The line that starts every report, so that a person or a script finds it in a log. */
    static final String HEADER = "==== roce4j testkit: ";
    /** A test that connects thousands of times is not reported event by event. */
    static final int MAX_CM_EVENTS = 64;

    private FailureReport() {
    }

    static String write(TestFabric test, Throwable failure, List<TrackedResource> leaked,
                        Map<String, Integer> unacknowledged) {
        FabricSettings settings = test.settings();
        StringBuilder out = new StringBuilder();
        out.append(HEADER).append(test.testName()).append(" failed ====\n");
        out.append("failure: ").append(failure.getClass().getName()).append(":\n");
        String message = String.valueOf(failure.getMessage()).strip();
        message.lines().forEach(line -> out.append("  ").append(line).append('\n'));
        out.append("seed: ").append(settings.seed()).append("  (replay: ").append(settings.replayHint()).append(")\n");
        out.append("fabric: ").append(settings.nodes()).append(" nodes, ").append(settings.link())
                .append(", MTU ").append(settings.mtu().bytes()).append(", profile ").append(settings.profile()).append('\n');
        Faults faults = settings.faults();
        out.append("faults: ").append(faults.isEmpty() ? "none" : faults.describe()).append('\n');
        for (Path capture : test.captures()) {
            out.append("pcap: ").append(capture.toAbsolutePath()).append('\n');
            ladderNextTo(capture, out);
        }
        for (TrackedResource resource : leaked) {
            out.append("left open: ").append(resource).append('\n');
        }
        unacknowledged.forEach((cq, n) -> out.append("left unacknowledged: ").append(n)
                .append(" completion event(s) on ").append(cq).append('\n'));
        List<String> cmEvents = test.cmEvents().lines();
        if (!cmEvents.isEmpty()) {
            int shown = Math.min(cmEvents.size(), MAX_CM_EVENTS);
            out.append("rdma_cm events, last ").append(shown).append(" of ").append(cmEvents.size())
                    .append(" (time, node, event, local → peer, status):\n");
            cmEvents.subList(cmEvents.size() - shown, cmEvents.size())
                    .forEach(line -> out.append("  ").append(line).append('\n'));
        }
        if (settings.lastFrames() > 0) {
            Map<String, String> names = new LinkedHashMap<>();
            test.nodes().forEach(node -> names.put(FrameText.address(node.address()), node.name()));
            lastFramesPerQp(test.pcap(), settings.lastFrames(), names, out);
        }
        out.append("==== end of roce4j testkit report ====");
        return out.toString();
    }

    /**
     * Draws the capture as a ladder diagram next to it ({@code x.pcap} gives {@code x.ladder.html}) and
     * names the file: one arrow per frame, one lifeline per QP, NAKs and resent requests marked.
     */
    static void ladderNextTo(Path capture, StringBuilder out) {
        if (!Files.exists(capture)) {
            return; // the report says there is no capture
        }
        Path page = ladderOf(capture);
        try (CaptureReader reader = CaptureReader.open(capture)) {
            Ladder ladder = CaptureLadder.read(reader, capture.getFileName().toString(), new ResentRequests(),
                    CaptureLadder.DEFAULT_MAX_FRAMES);
            Files.writeString(page, LadderSvg.html(ladder), StandardCharsets.UTF_8);
            out.append("ladder: ").append(page.toAbsolutePath()).append("  (open it in a browser)\n");
        } catch (IOException | RuntimeException e) {
            out.append("(could not draw the ladder of ").append(capture.getFileName()).append(": ").append(e).append(")\n");
        }
    }

    /** {@return where the ladder of {@code capture} goes: beside it, {@code .pcap} or {@code .pcapng} replaced} */
    static Path ladderOf(Path capture) {
        String name = capture.getFileName().toString();
        String stem = name.replaceFirst("\\.pcap(ng)?$", "");
        return capture.resolveSibling(stem + ".ladder.html");
    }

    /**
     * Groups the capture's frames by the QP they are addressed to (destination IP and BTH QPN):
     * the requests a responder got, and the ACKs and responses its requester got.
     */
    static void lastFramesPerQp(Path pcap, int last, StringBuilder out) {
        lastFramesPerQp(pcap, last, Map.of(), out);
    }

    /** As {@link #lastFramesPerQp(Path, int, StringBuilder)}, naming the device at each address. */
    static void lastFramesPerQp(Path pcap, int last, Map<String, String> deviceByAddress, StringBuilder out) {
        if (!Files.exists(pcap)) {
            out.append("(no capture at ").append(pcap).append(")\n");
            return;
        }
        Map<String, Deque<String>> byQp = new LinkedHashMap<>();
        Map<String, Integer> counts = new LinkedHashMap<>();
        List<String> notRoce = new ArrayList<>();
        RoceDecoder decoder = new RoceDecoder();
        long number = 0;
        long first = 0;
        try (CaptureReader reader = CaptureReader.open(pcap)) {
            for (CapturedPacket record : reader) {
                number++;
                if (number == 1) {
                    first = record.timestampNanos();
                }
                DecodeResult result = decoder.decode(record.data());
                String line = FrameLines.line(number, record.timestampNanos() - first, result);
                RoceFrame frame = switch (result) {
                    case DecodeResult.Decoded decoded -> decoded.frame();
                    case DecodeResult.Dropped dropped -> dropped.parsedFrame();
                };
                if (frame == null) {
                    notRoce.add(line);
                    continue;
                }
                String destination = FrameText.address(frame.ip().destination());
                String device = deviceByAddress.get(destination);
                String key = String.format(Locale.ROOT, "QP 0x%06x at %s%s", frame.packet().bth().destQp(),
                        destination, device == null ? "" : " (" + device + ")");
                Deque<String> lines = byQp.computeIfAbsent(key, k -> new ArrayDeque<>());
                lines.addLast(line);
                if (lines.size() > last) {
                    lines.removeFirst();
                }
                counts.merge(key, 1, Integer::sum);
            }
        } catch (IOException | RuntimeException e) {
            out.append("(could not read the capture: ").append(e).append(")\n");
        }
        out.append("frames captured: ").append(number).append('\n');
        for (Map.Entry<String, Deque<String>> qp : byQp.entrySet()) {
            int total = counts.get(qp.getKey());
            out.append("last ").append(qp.getValue().size()).append(" of ").append(total)
                    .append(" frames to ").append(qp.getKey()).append(" (roce4j decode):\n");
            for (String line : qp.getValue()) {
                out.append("  ").append(line).append('\n');
            }
        }
        for (String line : notRoce.subList(Math.max(0, notRoce.size() - last), notRoce.size())) {
            out.append("  ").append(line).append('\n');
        }
    }
}
