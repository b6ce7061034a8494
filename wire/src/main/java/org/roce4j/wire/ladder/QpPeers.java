package org.roce4j.wire.ladder;

import java.net.InetAddress;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.roce4j.wire.Deth;
import org.roce4j.wire.RoceFrame;

/**
 * Which QP sent each frame. A UD frame says so (the DETH's source QP, IBTA 9.3.3), an RC, UC or
 * XRC frame does not: its BTH names only the destination QP. The frames one node sends to QP
 * {@code qb} of another come from the QP there that {@code qb}'s node sends to: of the streams going
 * back, the one that shares the most PSNs with this one (an RC response carries its request's PSN,
 * IBTA 9.7.5.1), else the only one left. {@link #observe} every frame first, then ask.
 *
 * <p>Two passes: the ladder holds its frames anyway, and {@code roce4j decode --qp} reads the file
 * twice. The PSNs kept per stream are bounded (4096), so a long capture costs no more
 * memory than a short one.
 */
public final class QpPeers {
    /** PSNs remembered per stream: plenty to pair two streams, bounded for long captures. */
    static final int PSNS_KEPT = 4096;

    /** Frames from one address to one QP at another. */
    private record Stream(InetAddress from, InetAddress to, int destQp) {
    }

    private final Map<Stream, Set<Integer>> psnsByStream = new LinkedHashMap<>();
    private Map<Stream, Integer> senders;

    /**
     * Learns from one frame, in any order.
     *
     * @param frame a decoded frame
     */
    public void observe(RoceFrame frame) {
        if (frame.packet().header(Deth.class).isPresent()) {
            return; // the frame names its sender
        }
        Set<Integer> psns = psnsByStream.computeIfAbsent(stream(frame), s -> new HashSet<>());
        if (psns.size() < PSNS_KEPT) {
            psns.add(frame.packet().bth().psn());
        }
        senders = null;
    }

    /**
     * {@return the QP that sent {@code frame}, its QPN {@link Endpoint#UNKNOWN_QPN} when no frame told}
     *
     * @param frame a frame given to {@link #observe} (or a UD frame)
     */
    public Endpoint source(RoceFrame frame) {
        Deth deth = frame.packet().header(Deth.class).orElse(null);
        if (deth != null) {
            return new Endpoint(frame.ip().source(), deth.sourceQp());
        }
        Integer qp = senders().get(stream(frame));
        return new Endpoint(frame.ip().source(), qp == null ? Endpoint.UNKNOWN_QPN : qp);
    }

    /**
     * {@return the QP {@code frame} is addressed to}
     *
     * @param frame a decoded frame
     */
    public static Endpoint destination(RoceFrame frame) {
        return new Endpoint(frame.ip().destination(), frame.packet().bth().destQp());
    }

    private static Stream stream(RoceFrame frame) {
        return new Stream(frame.ip().source(), frame.ip().destination(), frame.packet().bth().destQp());
    }

    /** Pairs each stream with one going back: most shared PSNs first, then the only one left. */
    private Map<Stream, Integer> senders() {
        if (senders != null) {
            return senders;
        }
        record Candidate(Stream forth, Stream back, int sharedPsns, int order) {
        }
        List<Stream> streams = new ArrayList<>(psnsByStream.keySet());
        List<Candidate> candidates = new ArrayList<>();
        for (int i = 0; i < streams.size(); i++) {
            for (Stream back : streams) {
                Stream forth = streams.get(i);
                if (back.from().equals(forth.to()) && back.to().equals(forth.from()) && !back.equals(forth)) {
                    Set<Integer> shared = new HashSet<>(psnsByStream.get(forth));
                    shared.retainAll(psnsByStream.get(back));
                    candidates.add(new Candidate(forth, back, shared.size(), i));
                }
            }
        }
        candidates.sort(Comparator.comparingInt(Candidate::sharedPsns).reversed().thenComparingInt(Candidate::order));
        Map<Stream, Integer> pairs = new HashMap<>();
        for (Candidate candidate : candidates) {
            if (candidate.sharedPsns() > 0) {
                pair(pairs, candidate.forth(), candidate.back());
            }
        }
        for (Stream forth : streams) {
            if (!pairs.containsKey(forth)) {
                List<Stream> left = candidates.stream().filter(c -> c.forth().equals(forth) && !pairs.containsKey(c.back()))
                        .map(Candidate::back).toList();
                if (left.size() == 1) {
                    pair(pairs, forth, left.getFirst());
                }
            }
        }
        senders = pairs;
        return pairs;
    }

    /** The frames of {@code forth} come from {@code back}'s destination QP, and the other way round. */
    private static void pair(Map<Stream, Integer> pairs, Stream forth, Stream back) {
        if (!pairs.containsKey(forth) && !pairs.containsKey(back)) {
            pairs.put(forth, back.destQp());
            pairs.put(back, forth.destQp());
        }
    }
}
