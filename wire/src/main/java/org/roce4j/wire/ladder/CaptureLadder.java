package org.roce4j.wire.ladder;

import java.io.IOException;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.roce4j.wire.Aeth;
import org.roce4j.wire.AethSyndrome;
import org.roce4j.wire.DecodeResult;
import org.roce4j.wire.DropReason;
import org.roce4j.wire.RoceDecoder;
import org.roce4j.wire.RoceFrame;
import org.roce4j.wire.pcap.CaptureReader;
import org.roce4j.wire.pcap.CapturedPacket;
import org.roce4j.wire.pcap.FaultComments;
import org.roce4j.wire.pcap.LinkType;

/**
 * Reads a capture (pcap or pcapng) into a {@link Ladder}: an arrow for each RoCEv2 frame (a frame
 * with a bad ICRC too, marked), from the QP that sent it ({@link QpPeers}) to the QP it is addressed
 * to. Frames that are not RoCEv2 (ARP, TCP, RoCEv1, InfiniBand) are counted, not drawn. A ladder is
 * for reading, so it holds its frames: at most {@code maxFrames} are drawn, the rest counted.
 */
public final class CaptureLadder {
    /** The most arrows a ladder draws unless told otherwise: a page a person can still scroll. */
    public static final int DEFAULT_MAX_FRAMES = 5000;

    private record Seen(long number, long nanos, RoceFrame frame, String icrc, List<String> comments, String resent) {
    }

    private CaptureLadder() {
    }

    /**
     * Reads {@code reader} to its end.
     *
     * @param reader     the capture
     * @param title      what to call the diagram (the file's name)
     * @param classifier which requests were sent again; {@link FrameClassifier#NONE} to mark none
     * @param maxFrames  the most arrows to draw
     * @return the ladder
     * @throws IOException if the capture cannot be read
     */
    public static Ladder read(CaptureReader reader, String title, FrameClassifier classifier, int maxFrames)
            throws IOException {
        RoceDecoder decoder = new RoceDecoder();
        QpPeers peers = new QpPeers();
        List<Seen> seen = new ArrayList<>();
        long number = 0;
        long first = 0;
        long notRoce = 0;
        long beyondLimit = 0;
        for (Optional<CapturedPacket> next = reader.read(); next.isPresent(); next = reader.read()) {
            CapturedPacket packet = next.get();
            if (number++ == 0) {
                first = packet.timestampNanos();
            }
            Optional<String> resent = classifier.resent(number, packet);
            RoceFrame frame = null;
            String icrc = "ok";
            if (packet.linkType().equals(LinkType.ETHERNET)) {
                switch (decoder.decode(packet.data())) {
                    case DecodeResult.Decoded decoded -> frame = decoded.frame();
                    case DecodeResult.Dropped dropped -> {
                        frame = dropped.parsedFrame();
                        icrc = dropped.reason() == DropReason.BAD_ICRC ? "BAD" : "not checked: " + dropped.detail();
                    }
                }
            }
            if (frame == null) {
                notRoce++;
            } else if (seen.size() == maxFrames) {
                beyondLimit++;
            } else {
                peers.observe(frame);
                seen.add(new Seen(number, packet.timestampNanos() - first, frame, icrc, packet.comments(),
                        resent.orElse(null)));
            }
        }
        List<LadderArrow> arrows = new ArrayList<>(seen.size());
        for (Seen frame : seen) {
            arrows.add(arrow(frame, peers));
        }
        return new Ladder(title, lifelines(arrows), arrows, number, notDrawn(notRoce, beyondLimit, maxFrames));
    }

    private static LadderArrow arrow(Seen seen, QpPeers peers) {
        RoceFrame frame = seen.frame();
        Endpoint from = peers.source(frame);
        Set<Mark> marks = EnumSet.noneOf(Mark.class);
        switch (frame.packet().header(Aeth.class).map(Aeth::syndrome).orElse(null)) {
            case AethSyndrome.Nak nak -> marks.add(Mark.NAK);
            case AethSyndrome.RnrNak rnr -> marks.add(Mark.RNR_NAK);
            case null, default -> { }
        }
        if (seen.resent() != null) {
            marks.add(Mark.RESENT);
        }
        if (FaultComments.dropped(seen.comments())) {
            marks.add(Mark.DROPPED);
        }
        if (seen.icrc().equals("BAD")) {
            marks.add(Mark.BAD_ICRC);
        }
        return new LadderArrow(seen.number(), seen.nanos(), from, QpPeers.destination(frame), ArrowText.label(frame),
                ArrowText.detail(seen.number(), seen.nanos(), frame, from, seen.icrc(), seen.comments(), seen.resent()),
                marks);
    }

    /**
     * Lifelines in the order they first appear, each followed by the one it exchanged most frames with
     * (the other end of its connection), so that a connection's arrows are short.
     */
    static List<Endpoint> lifelines(List<LadderArrow> arrows) {
        Map<Endpoint, Map<Endpoint, Integer>> traffic = new LinkedHashMap<>();
        for (LadderArrow arrow : arrows) {
            traffic.computeIfAbsent(arrow.from(), e -> new LinkedHashMap<>()).merge(arrow.to(), 1, Integer::sum);
            traffic.computeIfAbsent(arrow.to(), e -> new LinkedHashMap<>()).merge(arrow.from(), 1, Integer::sum);
        }
        List<Endpoint> order = new ArrayList<>();
        for (Endpoint endpoint : traffic.keySet()) {
            if (order.contains(endpoint)) {
                continue;
            }
            order.add(endpoint);
            Endpoint partner = null;
            int most = 0;
            for (Map.Entry<Endpoint, Integer> peer : traffic.get(endpoint).entrySet()) {
                if (peer.getValue() > most && !order.contains(peer.getKey())) { // ties: the one seen first
                    partner = peer.getKey();
                    most = peer.getValue();
                }
            }
            if (partner != null) {
                order.add(partner);
            }
        }
        return order;
    }

    private static String notDrawn(long notRoce, long beyondLimit, int maxFrames) {
        List<String> parts = new ArrayList<>();
        if (notRoce > 0) {
            parts.add(notRoce + " frame(s) that are not RoCEv2");
        }
        if (beyondLimit > 0) {
            parts.add(beyondLimit + " RoCE frame(s) after the first " + maxFrames);
        }
        return String.join("; ", parts);
    }
}
