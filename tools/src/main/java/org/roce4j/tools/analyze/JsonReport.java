package org.roce4j.tools.analyze;

import java.io.PrintWriter;
import java.util.List;
import java.util.Map;
import java.util.StringJoiner;

/**
 * The report for machines: one JSON object whose field names are stable (docs/analyze.md lists
 * them). Every enum-keyed map lists all its keys, zeros included, so a consumer never meets a
 * missing field. Times are nanoseconds.
 */
final class JsonReport {
    private final AnalysisReport report;
    private final PrintWriter out;

    JsonReport(AnalysisReport report, PrintWriter out) {
        this.report = report;
        this.out = out;
    }

    void write() {
        StringJoiner connections = new StringJoiner(",", "[", "]");
        for (Map.Entry<String, List<RcFlow>> connection : report.connections().entrySet()) {
            StringJoiner directions = new StringJoiner(",", "[", "]");
            connection.getValue().forEach(flow -> directions.add(direction(flow)));
            connections.add("{\"connection\":" + string(connection.getKey()) + ",\"directions\":" + directions + "}");
        }
        StringJoiner datagrams = new StringJoiner(",", "[", "]");
        for (DatagramFlow flow : report.datagramFlows) {
            datagrams.add("{\"flow\":" + string(flow.name) + ",\"packets\":" + flow.packets + ",\"messages\":" + flow.messages
                    + ",\"bytes\":" + flow.goodput.totalBytes() + ",\"psnGaps\":" + flow.psnGaps
                    + ",\"missingPsns\":" + flow.missingPsns + ",\"goodput\":" + goodput(flow.goodput) + "}");
        }
        StringJoiner violations = new StringJoiner(",", "[", "]");
        for (Violation violation : report.violations()) {
            violations.add("{\"kind\":" + string(violation.kind().name()) + ",\"frame\":" + violation.frame()
                    + ",\"detail\":" + string(violation.detail()) + "}");
        }
        out.println("{\"frames\":" + report.frames + ",\"roceFrames\":" + report.roceFrames + ",\"badIcrc\":" + report.badIcrc
                + ",\"malformed\":" + report.malformed + ",\"otherLinkType\":" + report.otherLinkType
                + ",\"droppedByFaultInjector\":" + report.droppedByFaultInjector + ",\"cnps\":" + report.cnps
                + ",\"unmatchedResponses\":" + report.unmatchedResponses + ",\"pathMtu\":" + report.pathMtu
                + ",\"connections\":" + connections + ",\"datagramFlows\":" + datagrams
                + ",\"clean\":" + report.clean() + ",\"violationCounts\":" + allKeys(ViolationKind.values(), report.violationCounts)
                + ",\"violations\":" + violations + "}");
    }

    private static String direction(RcFlow flow) {
        LatencyStats latency = flow.latency;
        return "{\"requester\":" + string(flow.requesterName()) + ",\"responder\":" + string(flow.responderName())
                + ",\"requestPackets\":" + flow.requestPackets + ",\"responsePackets\":" + flow.responsePackets
                + ",\"messagesSent\":" + flow.messagesSent + ",\"messagesAcknowledged\":" + flow.messagesAcknowledged
                + ",\"outstandingAtEnd\":" + flow.outstandingMessages()
                + ",\"latencyNanos\":{\"count\":" + latency.count() + ",\"min\":" + latency.min() + ",\"median\":"
                + latency.quantile(0.5) + ",\"p99\":" + latency.quantile(0.99) + ",\"max\":" + latency.max() + "}"
                + ",\"goodput\":" + goodput(flow.goodput)
                + ",\"psnGaps\":" + flow.psnGaps + ",\"missingPsns\":" + flow.missingPsns
                + ",\"naksByCode\":" + map(flow.naksByCode)
                + ",\"rnr\":{\"naks\":" + flow.rnrNaks + ",\"waited\":" + flow.rnrWaited + ",\"notWaited\":" + flow.rnrNotWaited + "}"
                + ",\"retransmissions\":" + allKeys(RetransmissionCause.values(), flow.retransmissions)
                + ",\"resentPackets\":" + flow.resentPackets + ",\"resumedPastNakedPsn\":" + flow.resumedPastNakedPsn
                + ",\"responsesNotDelivered\":" + flow.responsesNotDelivered + ",\"untrackedMessages\":" + flow.untrackedMessages
                + ",\"duplicates\":{\"total\":" + flow.duplicates.total() + ",\"byKind\":" + map(flow.duplicates.byKind())
                + ",\"answers\":" + allKeys(DuplicateAnswer.values(), flow.duplicates.answers()) + "}}";
    }

    private static String goodput(GoodputSeries goodput) {
        StringJoiner intervals = new StringJoiner(",", "[", "]");
        for (long bytes : goodput.bytesPerInterval()) {
            intervals.add(Long.toString(bytes));
        }
        return "{\"bytes\":" + goodput.totalBytes() + ",\"intervalNanos\":" + goodput.intervalNanos()
                + ",\"bytesPerInterval\":" + intervals + "}";
    }

    private static <K extends Enum<K>> String allKeys(K[] keys, Map<K, Long> counts) {
        StringJoiner json = new StringJoiner(",", "{", "}");
        for (K key : keys) {
            json.add(string(key.name()) + ":" + counts.getOrDefault(key, 0L));
        }
        return json.toString();
    }

    private static String map(Map<?, Long> counts) {
        StringJoiner json = new StringJoiner(",", "{", "}");
        counts.forEach((key, value) -> json.add(string(key.toString()) + ":" + value));
        return json.toString();
    }

    static String string(String value) {
        StringBuilder json = new StringBuilder("\"");
        for (char c : value.toCharArray()) {
            switch (c) {
                case '"' -> json.append("\\\"");
                case '\\' -> json.append("\\\\");
                default -> {
                    if (c < 0x20) {
                        json.append(String.format("\\u%04x", (int) c));
                    } else {
                        json.append(c);
                    }
                }
            }
        }
        return json.append('"').toString();
    }
}
