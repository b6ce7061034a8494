package org.roce4j.tools.analyze;

import java.io.IOException;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.roce4j.wire.Deth;
import org.roce4j.wire.Direction;
import org.roce4j.wire.DecodeResult;
import org.roce4j.wire.RoceDecoder;
import org.roce4j.wire.RoceFrame;
import org.roce4j.wire.RocePacket;
import org.roce4j.wire.Transport;
import org.roce4j.wire.pcap.CaptureReader;
import org.roce4j.wire.pcap.CapturedPacket;
import org.roce4j.wire.pcap.FaultComments;
import org.roce4j.wire.pcap.LinkType;

/**
 * Analyses a capture frame by frame in one pass: {@link #accept} each packet in file order, then
 * {@link #report()}. State is kept per flow and per outstanding message only, so memory does not
 * grow with the number of frames. Not thread-safe.
 *
 * <p>An RC BTH names only the destination QP, so requests (A to B's QP) and their responses (B to
 * A's QP) are paired by PSN: a response belongs to the request flow from its destination to its
 * source that has sent its PSN (PSNs start at random 24-bit values, so two flows rarely overlap).
 */
public final class CaptureAnalysis {
    private final RoceDecoder decoder = new RoceDecoder();
    private final MtuEstimate mtu = new MtuEstimate();
    private final ViolationLog violations = new ViolationLog();
    private final Map<FlowKey, RcFlow> rcFlows = new LinkedHashMap<>();
    private final Map<FlowKey, RcFlow> responseRoutes = new HashMap<>();
    private final Map<String, DatagramFlow> datagramFlows = new LinkedHashMap<>();
    private long frames;
    private long otherLinkType;
    private long droppedByCapture;
    private long cnps;
    private long unmatchedResponses;
    private Resend lastResend;

    /** Reads {@code reader} to its end and reports. */
    public static AnalysisReport analyze(CaptureReader reader) throws IOException {
        CaptureAnalysis analysis = new CaptureAnalysis();
        for (Optional<CapturedPacket> next = reader.read(); next.isPresent(); next = reader.read()) {
            analysis.accept(next.get());
        }
        return analysis.report();
    }

    /** The next packet of the capture, in file order. */
    public void accept(CapturedPacket packet) {
        long frame = ++frames;
        lastResend = null;
        if (!packet.linkType().equals(LinkType.ETHERNET)) {
            otherLinkType++;
            return;
        }
        // A frame with a bad ICRC is dropped by its receiver (rxe_recv.c) and its bytes cannot be
        // trusted (a corrupted PSN would mislead everything below): the decoder counts it, nothing more.
        if (!(decoder.decode(packet.data()) instanceof DecodeResult.Decoded decoded)) {
            return;
        }
        RoceFrame roce = decoded.frame();
        boolean delivered = true;
        // The emulator's pcapng tap says "dropped by rule N" on a frame its fault injector dropped: the
        // capture holds it as it was sent, but it never arrived.
        if (FaultComments.dropped(packet.comments())) {
            droppedByCapture++;
            delivered = false;
        }
        accept(frame, packet.timestampNanos(), roce, delivered);
    }

    private void accept(long frame, long nanos, RoceFrame roce, boolean delivered) {
        RocePacket packet = roce.packet();
        Transport transport = packet.opcode().transport();
        InetAddress source = roce.ip().source();
        InetAddress destination = roce.ip().destination();
        FlowKey key = new FlowKey(source, destination, packet.bth().destQp());
        if (transport == Transport.CNP) {
            cnps++;
            return;
        }
        if (transport == Transport.UD || transport == Transport.UC) {
            String name = transport == Transport.UD
                    ? "UD " + source.getHostAddress() + " QP " + qp(packet.header(Deth.class).map(Deth::sourceQp).orElse(-1))
                            + " -> " + destination.getHostAddress() + " QP " + qp(key.destQp())
                    : "UC " + source.getHostAddress() + " -> " + destination.getHostAddress() + " QP " + qp(key.destQp());
            datagramFlows.computeIfAbsent(name, DatagramFlow::new).packet(nanos, packet);
            return;
        }
        if (packet.opcode().operation().direction() == Direction.REQUEST) {
            RcFlow flow = rcFlows.computeIfAbsent(key, k -> new RcFlow(k, mtu, violations));
            flow.request(frame, nanos, packet, delivered);
            lastResend = flow.lastResend();
            return;
        }
        RcFlow flow = responseRoutes.get(key);
        if (flow == null) {
            flow = pair(key, packet.bth().psn());
        }
        if (flow == null) {
            unmatchedResponses++; // the capture starts after the requests it answers
            return;
        }
        flow.response(frame, nanos, packet, delivered);
    }

    /**
     * {@return whether the packet last given to {@link #accept} was an RC request sent again, and in
     * which go-back} What {@code roce4j ladder} marks on its arrows: one judgement of what a
     * retransmission is, this one.
     */
    public Optional<Resend> lastResend() {
        return Optional.ofNullable(lastResend);
    }

    /** The request flow a new response direction answers: the one that sent its PSN, else the only candidate. */
    private RcFlow pair(FlowKey responses, int psn) {
        List<RcFlow> candidates = new ArrayList<>();
        for (RcFlow flow : rcFlows.values()) {
            if (flow.requesterQp < 0 && flow.requests.source().equals(responses.destination())
                    && flow.requests.destination().equals(responses.source())) {
                if (flow.hasSent(psn)) {
                    return route(responses, flow);
                }
                candidates.add(flow);
            }
        }
        return candidates.size() == 1 ? route(responses, candidates.getFirst()) : null;
    }

    private RcFlow route(FlowKey responses, RcFlow flow) {
        flow.requesterQp = responses.destQp();
        responseRoutes.put(responses, flow);
        return flow;
    }

    static String qp(int qp) {
        return qp < 0 ? "?" : String.format("0x%06x", qp);
    }

    /** What the capture showed so far. */
    public AnalysisReport report() {
        return new AnalysisReport(frames, decoder.counters(), otherLinkType, droppedByCapture, cnps, unmatchedResponses,
                mtu.known() ? mtu.bytes() : 0, List.copyOf(rcFlows.values()), List.copyOf(datagramFlows.values()),
                violations.kept(), violations.counts());
    }
}
