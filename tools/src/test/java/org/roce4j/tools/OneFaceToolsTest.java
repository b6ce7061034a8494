package org.roce4j.tools;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * One face (issue 21): the tools print QP numbers and PSNs as {@code 0x%06x} and keys as {@code 0x%08x}
 * ({@code org.roce4j.verbs.NumberText}), as rdma-core's tools do. Lines that repeat a C tool's output
 * (the pingpongs, perftest, rping's debug lines) keep that tool's format and are checked by their own tests.
 */
class OneFaceToolsTest {
    /** A QPN, PSN or key field in a decode or demo line, with its value. */
    private static final Pattern FIELD = Pattern.compile(
            "(?i)\\b(QP|PSN|qpn|psn|qp_num|src_qp|srcQP|rkey|lkey|qkey)[= ]([0-9a-fx]+)\\b");

    @TempDir
    Path dir;

    @Test
    @DisplayName("roce4j demo: its QP pair line and completions print QPNs as 0x%06x")
    void demoPrintsQpnsInHex() {
        TestCaptures.Run run = TestCaptures.run("demo", "--pcap", dir.resolve("demo.pcap").toString());

        assertThat(run.exitCode()).as(run.out()).isZero();
        assertThat(run.out()).containsPattern("RC QP 0x[0-9a-f]{6} on rxe0 <-> QP 0x[0-9a-f]{6} on rxe1, path MTU \\d+");
        assertEveryFieldHex(run.out());
    }

    @Test
    @DisplayName("roce4j decode --verbose of the committed captures: every QP and PSN 0x%06x, every key 0x%08x")
    void decodePrintsQpnsPsnsAndKeysInHex() {
        for (String capture : List.of("demo.pcap", "all-opcodes.pcap")) {
            TestCaptures.Run run = TestCaptures.run("decode", "--verbose", TestCaptures.committed(capture).toString());

            assertThat(run.exitCode()).as(run.err()).isZero();
            assertThat(run.out()).contains("PSN=0x");
            assertEveryFieldHex(run.out());
        }
    }

    private static void assertEveryFieldHex(String out) {
        Matcher field = FIELD.matcher(out);
        int seen = 0;
        while (field.find()) {
            String name = field.group(1).toLowerCase(java.util.Locale.ROOT);
            String digits = name.endsWith("key") ? "8" : "6";
            assertThat(field.group(2)).as("%s in: %s", field.group(1), lineOf(out, field.start()))
                    .matches("0x[0-9a-f]{" + digits + "}");
            seen++;
        }
        assertThat(seen).as("QPN, PSN and key fields").isPositive();
    }

    private static String lineOf(String text, int at) {
        int start = text.lastIndexOf('\n', at) + 1;
        int end = text.indexOf('\n', at);
        return text.substring(start, end < 0 ? text.length() : end);
    }
}
