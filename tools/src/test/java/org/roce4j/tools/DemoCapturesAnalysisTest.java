package org.roce4j.tools;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@code roce4j analyze} over the fault demo's own pcapng captures: what the analysis counts from
 * the frames agrees with what the two RNICs counted (the demo's "recovery:" line).
 *
 * <p>The NAKs compared are those delivered (the analysis ignores a response the capture says was
 * dropped or that has a bad ICRC, as its requester did). Go-backs are compared on these seeds only:
 * the tap writes a frame the injector dropped at its send time and the others at their arrival
 * time, so with several drops in one go-back the capture's order is not the sender's and the
 * analysis can count a go-back more than the requester did (docs/analyze.md says so).
 */
class DemoCapturesAnalysisTest {
    private static final Pattern RECOVERY = Pattern.compile(
            "recovery: (\\d+) retransmissions \\(requester went back\\), (\\d+) NAKs sent \\((\\d+) RNR\\), (\\d+) duplicate requests seen");

    @TempDir
    Path dir;

    @ParameterizedTest(name = "demo {0}")
    @CsvSource(delimiter = '|', value = {
        "--loss 0.05 --seed 17|1|0|1",
        "--corrupt 0.1 --seed 5|1|0|2",
        "--loss 0.05 --reorder 0.05 --duplicate 0.05 --corrupt 0.05 --seed 17|2|1|1"})
    @DisplayName("the demo's capture analyses clean, with the go-backs, NAKs and duplicates its RNICs counted")
    void demoCaptureMatchesTheRnicCounters(String faults, long goBacks, long naks, long duplicates) throws IOException {
        Path capture = dir.resolve("demo.pcapng");
        String[] demoArgs = ("demo " + faults + " --pcap " + capture).split(" ");
        TestCaptures.Run demo = TestCaptures.run(demoArgs);
        assertThat(demo.exitCode()).as(demo.out()).isZero();
        Matcher recovery = RECOVERY.matcher(demo.out());
        assertThat(recovery.find()).as(demo.out()).isTrue();
        assertThat(Long.parseLong(recovery.group(1))).as("the RNICs' go-backs (seed pinned)").isEqualTo(goBacks);
        assertThat(Long.parseLong(recovery.group(2))).isEqualTo(naks);
        assertThat(Long.parseLong(recovery.group(4))).isEqualTo(duplicates);

        TestCaptures.Run analyze = TestCaptures.run("analyze", "--json", capture.toString());
        assertThat(analyze.exitCode()).as(analyze.out() + analyze.err()).isZero();
        String json = analyze.out();
        assertThat(sum(json, "\"(SEQUENCE_NAK|RNR|IMPLICIT_NAK|LOCAL_ACK_TIMEOUT)\":(\\d+)")).isEqualTo(goBacks);
        assertThat(sum(json, "\"naksByCode\":\\{[^}]*?\"(PSN_SEQUENCE_ERROR)\":(\\d+)")
                + sum(json, "\"rnr\":\\{\"(naks)\":(\\d+)")).isEqualTo(naks);
        assertThat(sum(json, "\"duplicates\":\\{\"(total)\":(\\d+)")).isEqualTo(duplicates);
    }

    /** Sums group 2 of every match (group 1 names what is summed). */
    private static long sum(String json, String regex) {
        long total = 0;
        for (Matcher m = Pattern.compile(regex).matcher(json); m.find(); ) {
            total += Long.parseLong(m.group(2));
        }
        return total;
    }
}
