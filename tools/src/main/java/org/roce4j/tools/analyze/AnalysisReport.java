package org.roce4j.tools.analyze;

import java.io.PrintWriter;
import java.util.List;
import java.util.Map;
import org.roce4j.wire.DecodeCounters;
import org.roce4j.wire.DropReason;

/**
 * What {@link CaptureAnalysis} found: capture-wide counts, one entry per RC direction and per
 * datagram flow, and the violations. {@link #writeText} and {@link #writeJson} render it
 * (docs/analyze.md documents both).
 */
public final class AnalysisReport {
    final long frames;
    final long roceFrames;
    final long badIcrc;
    final long malformed;
    final long otherLinkType;
    final long droppedByFaultInjector;
    final long cnps;
    final long unmatchedResponses;
    final int pathMtu;
    final List<RcFlow> rcFlows;
    final List<DatagramFlow> datagramFlows;
    private final List<Violation> violations;
    final Map<ViolationKind, Long> violationCounts;

    AnalysisReport(long frames, DecodeCounters counters, long otherLinkType, long droppedByFaultInjector, long cnps,
                   long unmatchedResponses, int pathMtu, List<RcFlow> rcFlows, List<DatagramFlow> datagramFlows,
                   List<Violation> violations, Map<ViolationKind, Long> violationCounts) {
        this.frames = frames;
        this.roceFrames = counters.roce();
        this.badIcrc = counters.dropped(DropReason.BAD_ICRC);
        this.malformed = counters.roce() - counters.accepted() - badIcrc;
        this.otherLinkType = otherLinkType;
        this.droppedByFaultInjector = droppedByFaultInjector;
        this.cnps = cnps;
        this.unmatchedResponses = unmatchedResponses;
        this.pathMtu = pathMtu;
        this.rcFlows = rcFlows;
        this.datagramFlows = datagramFlows;
        this.violations = violations;
        this.violationCounts = violationCounts;
    }

    /** Frames read from the capture, RoCE or not. */
    public long frames() {
        return frames;
    }

    /** True when no rule was seen broken. */
    public boolean clean() {
        return violationCounts.isEmpty();
    }

    /** The violations (the first {@value ViolationLog#KEPT} of them), in capture order. */
    public List<Violation> violations() {
        return violations;
    }

    /** How many violations of each kind, all of them counted. */
    public Map<ViolationKind, Long> violationCounts() {
        return violationCounts;
    }

    /** Retransmission episodes by cause, summed over every RC direction. */
    public Map<RetransmissionCause, Long> retransmissions() {
        Map<RetransmissionCause, Long> sum = new java.util.EnumMap<>(RetransmissionCause.class);
        for (RetransmissionCause cause : RetransmissionCause.values()) {
            sum.put(cause, rcFlows.stream().mapToLong(f -> f.retransmissions.getOrDefault(cause, 0L)).sum());
        }
        return sum;
    }

    /** The RC directions grouped by connection (the two QPs' endpoints, whichever requests), in order of first frame. */
    Map<String, List<RcFlow>> connections() {
        Map<String, List<RcFlow>> byConnection = new java.util.LinkedHashMap<>();
        for (RcFlow flow : rcFlows) {
            String a = flow.requesterName();
            String b = flow.responderName();
            String name = a.compareTo(b) <= 0 ? a + " <-> " + b : b + " <-> " + a;
            byConnection.computeIfAbsent(name, k -> new java.util.ArrayList<>()).add(flow);
        }
        return byConnection;
    }

    public void writeText(PrintWriter out) {
        new TextReport(this, out).write();
    }

    public void writeJson(PrintWriter out) {
        new JsonReport(this, out).write();
    }
}
