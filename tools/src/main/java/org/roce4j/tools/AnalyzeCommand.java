package org.roce4j.tools;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import org.roce4j.tools.analyze.AnalysisReport;
import org.roce4j.tools.analyze.CaptureAnalysis;
import org.roce4j.wire.pcap.CaptureReader;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code roce4j analyze FILE [--json]}: per-connection transport analysis and a protocol check. */
@Command(name = "analyze",
        description = {
            "Analyses the RoCEv2 traffic of a capture (pcap or pcapng) per connection: messages, request->ACK"
                    + " latency, goodput, PSN gaps, NAKs, RNR NAKs, retransmissions by cause, duplicate requests and"
                    + " how they were answered; then checks protocol rules and names every violation.",
            "See docs/analyze.md for what each number means.",
            ""},
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {
            "0:no protocol violation",
            "1:some protocol rule is broken (each is named)",
            "2:usage error, or the file cannot be read as a pcap or pcapng capture",
            "3:internal error"})
final class AnalyzeCommand implements Callable<Integer> {
    static final int VIOLATION = 1;

    @Parameters(paramLabel = "FILE", description = "the capture: classic pcap or pcapng")
    private Path file;

    @Option(names = "--json", description = "print one JSON object (field names in docs/analyze.md) instead of text")
    private boolean json;

    @Option(names = {"-h", "--help"}, usageHelp = true, description = "show this help and exit")
    private boolean help;

    @Spec
    private CommandSpec spec;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        AnalysisReport report;
        try (CaptureReader reader = CaptureReader.open(file)) {
            report = CaptureAnalysis.analyze(reader);
        } catch (IOException e) {
            return Roce4j.failToRead(spec, file, e);
        }
        if (json) {
            report.writeJson(out);
        } else {
            report.writeText(out);
        }
        return report.clean() ? 0 : VIOLATION;
    }
}
