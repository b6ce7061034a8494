package org.roce4j.tools.analyze;

import java.io.PrintWriter;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/** The report for people: one block per connection and direction, then the violations. */
final class TextReport {
    private final AnalysisReport report;
    private final PrintWriter out;

    TextReport(AnalysisReport report, PrintWriter out) {
        this.report = report;
        this.out = out;
    }

    void write() {
        out.printf("frames: %d, RoCE frames: %d (%d with a bad ICRC, %d malformed), CNPs: %d%n",
                report.frames, report.roceFrames, report.badIcrc, report.malformed, report.cnps);
        if (report.droppedByFaultInjector > 0) {
            out.printf("frames the capture says the fault injector dropped: %d%n", report.droppedByFaultInjector);
        }
        if (report.otherLinkType > 0) {
            out.printf("frames skipped (link type not Ethernet): %d%n", report.otherLinkType);
        }
        if (report.unmatchedResponses > 0) {
            out.printf("responses to requests the capture does not show: %d%n", report.unmatchedResponses);
        }
        out.printf("path MTU seen: %s%n", report.pathMtu == 0 ? "unknown (no FIRST or MIDDLE packet)" : report.pathMtu + " bytes");
        for (Map.Entry<String, List<RcFlow>> connection : report.connections().entrySet()) {
            out.printf("%nRC connection %s%n", connection.getKey());
            connection.getValue().forEach(this::direction);
        }
        for (DatagramFlow flow : report.datagramFlows) {
            out.printf("%n%s: %d packets, %d messages, %d bytes, PSN gaps %d (%d PSNs missing)%n", flow.name,
                    flow.packets, flow.messages, flow.goodput.totalBytes(), flow.psnGaps, flow.missingPsns);
        }
        out.println();
        if (report.clean()) {
            out.println("protocol check: clean");
            return;
        }
        out.printf("protocol check: %d violation(s): %s%n", report.violationCounts.values().stream().mapToLong(Long::longValue).sum(),
                counts(report.violationCounts));
        for (Violation violation : report.violations()) {
            out.printf("  frame %d: %s: %s%n", violation.frame(), violation.kind(), violation.detail());
        }
    }

    private void direction(RcFlow flow) {
        out.printf("  %s -> %s%n", flow.requesterName(), flow.responderName());
        out.printf("    requests %d packets, %d messages (%d acknowledged, %d outstanding at the end); responses %d packets%n",
                flow.requestPackets, flow.messagesSent, flow.messagesAcknowledged, flow.outstandingMessages(), flow.responsePackets);
        LatencyStats latency = flow.latency;
        out.printf("    latency request->ack: min %s, median %s, p99 %s, max %s (%d messages)%n", micros(latency.min()),
                micros(latency.quantile(0.5)), micros(latency.quantile(0.99)), micros(latency.max()), latency.count());
        out.printf("    goodput: %d bytes acknowledged; per %s: %s%n", flow.goodput.totalBytes(),
                micros(flow.goodput.intervalNanos()), java.util.Arrays.toString(flow.goodput.bytesPerInterval()));
        out.printf("    PSN gaps: %d (%d PSNs missing); NAKs: %s; RNR NAKs: %d (requester waited the RNR time: %d, did not: %d)%n",
                flow.psnGaps, flow.missingPsns, flow.naksByCode.isEmpty() ? "none" : counts(flow.naksByCode),
                flow.rnrNaks, flow.rnrWaited, flow.rnrNotWaited);
        out.printf("    retransmissions: %s; %d packets resent", counts(flow.retransmissions), flow.resentPackets);
        if (flow.resumedPastNakedPsn > 0) {
            out.printf(" (%d go-back(s) first seen past the NAKed PSN: resent packets lost before the capture point)",
                    flow.resumedPastNakedPsn);
        }
        out.println();
        if (flow.duplicates.total() == 0) {
            out.println("    duplicate requests: 0");
        } else {
            out.printf("    duplicate requests: %d (%s); answered: %s%n", flow.duplicates.total(),
                    counts(flow.duplicates.byKind()), counts(flow.duplicates.answers()));
        }
    }

    static String counts(Map<?, Long> counts) {
        return counts.isEmpty() ? "none" : counts.entrySet().stream()
                .map(e -> e.getKey() + "=" + e.getValue()).collect(Collectors.joining(", "));
    }

    private static String micros(long nanos) {
        return String.format("%.1f µs", nanos / 1000.0);
    }
}
