package org.roce4j.tools;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code roce4j ladder}: the diagram of the demo's captures, its marks against roce4j analyze, and usage errors. */
class LadderCommandTest {
    /** The fault demo's example in the README: drops, corruptions, NAKs, go-backs. */
    static final String LOSSY_DEMO = "--loss 0.3 --reorder 0.1 --duplicate 0.05 --corrupt 0.05 --seed 1";

    @TempDir
    Path dir;

    /** Runs the fault demo into {@code dir/lossy.pcapng}. */
    static Path lossyDemoCapture(Path dir) {
        Path capture = dir.resolve("lossy.pcapng");
        TestCaptures.Run demo = TestCaptures.run(("demo " + LOSSY_DEMO + " --pcap " + capture).split(" "));
        assertThat(demo.exitCode()).as(demo.out() + demo.err()).isZero();
        return capture;
    }

    private static int count(String text, String regex) {
        int n = 0;
        for (Matcher m = Pattern.compile(regex).matcher(text); m.find(); ) {
            n++;
        }
        return n;
    }

    @Test
    @DisplayName("the demo's capture: two lifelines, 23 arrows, nothing marked")
    void demoCaptureDrawsTwoLifelinesAndAnArrowPerFrame() throws IOException {
        Path out = dir.resolve("demo.html");
        TestCaptures.Run run = TestCaptures.run("ladder", TestCaptures.committed("demo.pcap").toString(), "-o", out.toString());

        assertThat(run.exitCode()).as(run.err()).isZero();
        assertThat(run.out()).contains("2 lifelines, 23 arrows (0 NAK, 0 resent, 0 dropped)");
        String html = Files.readString(out);
        assertThat(count(html, "<g class=\"arrow[ \"]")).isEqualTo(23);
        assertThat(html).contains(">10.0.0.1 QP 0x", ">10.0.0.2 QP 0x", "RDMA Read Request PSN 0x", "RETH 4096 B");
    }

    @Test
    @DisplayName("the lossy demo: the resent and dropped arrows are the ones roce4j analyze counts")
    void lossyDemoMarksWhatTheAnalysisCounts() throws IOException {
        Path capture = lossyDemoCapture(dir);
        Path out = dir.resolve("lossy.svg");
        TestCaptures.Run run = TestCaptures.run("ladder", capture.toString(), "-o", out.toString());
        TestCaptures.Run analyze = TestCaptures.run("analyze", "--json", capture.toString());

        assertThat(run.exitCode()).as(run.err()).isZero();
        String svg = Files.readString(out);
        assertThat(svg).startsWith("<?xml");
        String json = analyze.out();
        assertThat(count(svg, "<g class=\"arrow[^\"]*\\bresent\\b")).isPositive()
                .isEqualTo(sum(json, "\"resentPackets\":(\\d+)"));
        assertThat(count(svg, "<g class=\"arrow[^\"]*\\bdropped\\b")).isPositive()
                .isEqualTo(sum(json, "\"droppedByFaultInjector\":(\\d+)"));
        assertThat(count(svg, "resent: starts a go-back")).isPositive()
                .isEqualTo(sum(json, "\"(?:SEQUENCE_NAK|RNR|IMPLICIT_NAK|LOCAL_ACK_TIMEOUT)\":(\\d+)"));
        assertThat(count(svg, "<g class=\"arrow[^\"]*\\bnak\\b")).isPositive();
        assertThat(count(svg, "<g class=\"gap\">")).as("ACK timeouts are compressed pauses").isPositive();
    }

    private static long sum(String json, String regex) {
        long total = 0;
        for (Matcher m = Pattern.compile(regex).matcher(json); m.find(); ) {
            total += Long.parseLong(m.group(1));
        }
        return total;
    }

    @Test
    @DisplayName("an output that is neither .html nor .svg, a missing capture, no -o: exit 2, one line")
    void usageErrorsExitTwo() {
        String demo = TestCaptures.committed("demo.pcap").toString();
        TestCaptures.Run png = TestCaptures.run("ladder", demo, "-o", dir.resolve("x.png").toString());
        TestCaptures.Run missing = TestCaptures.run("ladder", dir.resolve("nope.pcap").toString(), "-o",
                dir.resolve("x.html").toString());
        TestCaptures.Run noOutput = TestCaptures.run("ladder", demo);

        assertThat(png.exitCode()).isEqualTo(2);
        assertThat(png.err()).contains("must end in .html or .svg");
        assertThat(missing.exitCode()).isEqualTo(2);
        assertThat(missing.err()).contains("nope.pcap: no such file").doesNotContain("Exception");
        assertThat(noOutput.exitCode()).isEqualTo(2);
        assertThat(Files.exists(dir.resolve("x.html"))).isFalse();
    }
}
