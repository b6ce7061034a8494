package org.roce4j.tools;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.Callable;
import org.roce4j.tools.analyze.CaptureAnalysis;
import org.roce4j.tools.analyze.Resend;
import org.roce4j.wire.ladder.CaptureLadder;
import org.roce4j.wire.ladder.FrameClassifier;
import org.roce4j.wire.ladder.Ladder;
import org.roce4j.wire.ladder.LadderSvg;
import org.roce4j.wire.ladder.Mark;
import org.roce4j.wire.pcap.CaptureReader;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code roce4j ladder FILE -o OUT.html|OUT.svg}: the conversation as a ladder diagram. */
@Command(name = "ladder",
        description = {
            "Draws a capture (pcap or pcapng) as a ladder diagram: one lifeline per QP, the two ends of a"
                    + " connection side by side, one arrow per RoCEv2 frame (operation, PSN and lengths on it, every"
                    + " field on hover), time going down with long pauses compressed and marked. NAKs, RNR NAKs,"
                    + " retransmissions (as roce4j analyze judges them), bad ICRCs and frames the emulator's fault"
                    + " injector dropped (pcapng comments) are marked. The page needs no script and no network.",
            "See docs/ladder.md.",
            ""},
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {
            "0:the diagram is written",
            "2:usage error, or the capture cannot be read or the output written",
            "3:internal error"})
final class LadderCommand implements Callable<Integer> {
    @Parameters(paramLabel = "FILE", description = "the capture: classic pcap or pcapng")
    private Path file;

    @Option(names = {"-o", "--output"}, required = true, paramLabel = "OUT",
            description = "where to write the diagram: an HTML page (.html) or an SVG image (.svg)")
    private Path output;

    @Option(names = "--max-frames", paramLabel = "N", defaultValue = "" + CaptureLadder.DEFAULT_MAX_FRAMES,
            description = "draw at most the first N RoCE frames (default: ${DEFAULT-VALUE}); the rest are counted")
    private int maxFrames;

    @Option(names = {"-h", "--help"}, usageHelp = true, description = "show this help and exit")
    private boolean help;

    @Spec
    private CommandSpec spec;

    @Override
    public Integer call() {
        String name = output.getFileName().toString().toLowerCase(Locale.ROOT);
        boolean svg = name.endsWith(".svg");
        if (!svg && !name.endsWith(".html") && !name.endsWith(".htm")) {
            return Roce4j.fail(spec, output + ": the output's name must end in .html or .svg");
        }
        if (maxFrames < 1) {
            return Roce4j.fail(spec, "--max-frames must be at least 1, was " + maxFrames);
        }
        Ladder ladder;
        try (CaptureReader reader = CaptureReader.open(file)) {
            ladder = CaptureLadder.read(reader, file.getFileName().toString(), analysisResends(), maxFrames);
        } catch (IOException e) {
            return Roce4j.failToRead(spec, file, e);
        }
        try {
            Files.writeString(output, svg ? LadderSvg.svg(ladder) : LadderSvg.html(ladder), StandardCharsets.UTF_8);
        } catch (IOException e) {
            return Roce4j.fail(spec, output + ": cannot write: " + e.getMessage());
        }
        PrintWriter out = spec.commandLine().getOut();
        out.printf(Locale.ROOT, "%s: %d lifelines, %d arrows (%d NAK, %d resent, %d dropped)%s%n", output,
                ladder.lifelines().size(), ladder.arrows().size(), count(ladder, Mark.NAK) + count(ladder, Mark.RNR_NAK),
                count(ladder, Mark.RESENT), count(ladder, Mark.DROPPED),
                ladder.notDrawn().isEmpty() ? "" : "; not drawn: " + ladder.notDrawn());
        return 0;
    }

    /** Retransmissions as {@code roce4j analyze} judges them: the same analysis, fed frame by frame. */
    static FrameClassifier analysisResends() {
        CaptureAnalysis analysis = new CaptureAnalysis();
        return (number, packet) -> {
            analysis.accept(packet);
            return analysis.lastResend().map(Resend::describe);
        };
    }

    private static long count(Ladder ladder, Mark mark) {
        return ladder.arrows().stream().filter(arrow -> arrow.marks().contains(mark)).count();
    }
}
