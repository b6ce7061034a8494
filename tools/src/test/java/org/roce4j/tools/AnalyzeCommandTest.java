package org.roce4j.tools;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.roce4j.tools.analyze.HandMadeCapture;
import org.roce4j.wire.Opcode;

/** {@code roce4j analyze}: exit codes, text and JSON. */
class AnalyzeCommandTest {
    @TempDir
    Path dir;

    /** A WRITE at PSN 5 acknowledged at {@code ackPsn}: clean when 5, ACK_FOR_UNSENT_PSN when 6. */
    private Path writeAckedAt(int ackPsn) throws IOException {
        return new HandMadeCapture().write(0, Opcode.RC_RDMA_WRITE_ONLY, 5, 4).ack(10, ackPsn)
                .save(dir.resolve("ack" + ackPsn + ".pcap"));
    }

    @Test
    @DisplayName("a clean capture: exit 0, 'protocol check: clean'")
    void cleanCaptureExitsZero() throws IOException {
        TestCaptures.Run run = TestCaptures.run("analyze", writeAckedAt(5).toString());
        assertThat(run.exitCode()).as(run.out() + run.err()).isZero();
        assertThat(run.out()).contains("protocol check: clean", "1 messages (1 acknowledged");
    }

    @Test
    @DisplayName("a violation: exit 1, the violation named with its frame, in text and in JSON")
    void violationExitsOneAndIsNamed() throws IOException {
        Path file = writeAckedAt(6);
        TestCaptures.Run text = TestCaptures.run("analyze", file.toString());
        assertThat(text.exitCode()).isEqualTo(1);
        assertThat(text.out()).contains("frame 2: ACK_FOR_UNSENT_PSN");
        TestCaptures.Run json = TestCaptures.run("analyze", "--json", file.toString());
        assertThat(json.exitCode()).isEqualTo(1);
        assertThat(json.out().strip()).startsWith("{\"frames\":2,").endsWith("}")
                .contains("\"clean\":false", "\"ACK_FOR_UNSENT_PSN\":1", "{\"kind\":\"ACK_FOR_UNSENT_PSN\",\"frame\":2,");
    }

    @Test
    @DisplayName("a missing file, or one that is no capture: exit 2 and one line on stderr, no stack trace")
    void unreadableInputIsAUsageError() throws IOException {
        TestCaptures.Run missing = TestCaptures.run("analyze", dir.resolve("nope.pcap").toString());
        assertThat(missing.exitCode()).isEqualTo(2);
        assertThat(missing.err()).contains("nope.pcap: no such file").doesNotContain("Exception");
        Path text = Files.writeString(dir.resolve("notes.pcap"), "not a capture at all");
        TestCaptures.Run garbage = TestCaptures.run("analyze", text.toString());
        assertThat(garbage.exitCode()).isEqualTo(2);
        assertThat(garbage.err().lines().count()).isEqualTo(1);
        assertThat(garbage.err()).contains("notes.pcap").doesNotContain("Exception");
    }
}
