package org.roce4j.tools;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.roce4j.testing.RequiredInCi;
import org.roce4j.wire.pcap.PcapRecord;

/**
 * roce4j capture and replay through libpcap on the loopback interface: replay sends demo.pcap onto lo, capture
 * (started first, on a thread) takes it off again. Needs libpcap and root (or CAP_NET_RAW): in CI (.ci/run runs as
 * root; interop/capture-replay installs libpcap0.8) a missing one fails the test, elsewhere it is skipped and says so.
 */
class LiveLoopbackTest {
    /** demo.pcap's addresses: nothing else on this machine's loopback uses them, so the filter sees only the replay. */
    private static final String FILTER = "udp port 4791 and host 10.0.0.1";
    private static final Path DEMO = TestCaptures.committed("demo.pcap");

    @BeforeAll
    static void libpcapAndRoot() {
        boolean libpcap = Files.exists(Path.of("/usr/lib/x86_64-linux-gnu/libpcap.so.0.8"))
                || Files.exists(Path.of("/usr/lib/aarch64-linux-gnu/libpcap.so.0.8"));
        RequiredInCi.require(libpcap, "libpcap: roce4j capture / replay on lo did NOT run (apt-get install libpcap0.8)");
        RequiredInCi.require("root".equals(System.getProperty("user.name")),
                "root: roce4j capture / replay on lo did NOT run (a raw socket needs root or CAP_NET_RAW)");
    }

    @Test
    @DisplayName("replay -i lo puts demo.pcap's 23 frames on the wire and capture -i lo takes them off, byte for byte, ICRC ok")
    void replayedFramesAreCaptured(@TempDir Path dir) throws Exception {
        Path captured = dir.resolve("lo.pcap");
        CompletableFuture<TestCaptures.Run> capture = CompletableFuture.supplyAsync(() -> TestCaptures.run(
                "capture", "-i", "lo", "-f", FILTER, "-w", captured.toString(), "-c", "23", "--duration", "20",
                "--summary-every", "0"));
        waitForTheFileHeader(captured); // the handle is open and the filter set before the file is created

        TestCaptures.Run replay = TestCaptures.run("replay", DEMO.toString(), "-i", "lo", "--pps", "1000");
        TestCaptures.Run run = capture.get(30, TimeUnit.SECONDS);

        assertThat(replay.exitCode()).as(replay.err()).isZero();
        assertThat(run.exitCode()).as(run.err()).isZero();
        assertThat(TestCaptures.read(captured)).map(PcapRecord::data)
                .containsExactlyElementsOf(TestCaptures.read(DEMO).stream().map(PcapRecord::data).toList());
        assertThat(run.lines()).contains(
                "    10.0.0.1 QP 0x000011: 10 frames, 4724 bytes, 0 bad ICRC, 0 NAKs, 0 RNR NAKs",
                "    10.0.0.2 QP 0x000011: 13 frames, 9130 bytes, 0 bad ICRC, 0 NAKs, 0 RNR NAKs",
                "dropped by the kernel: 0");
    }

    @Test
    @DisplayName("capture -i on an interface that does not exist: exit 2 with libpcap's reason")
    void noSuchInterface() {
        TestCaptures.Run run = TestCaptures.run("capture", "-i", "nosuch0", "--duration", "1");

        assertThat(run.exitCode()).isEqualTo(Roce4j.USAGE);
        assertThat(run.err()).startsWith("roce4j capture: nosuch0: ").containsIgnoringCase("no such device");
    }

    @Test
    @DisplayName("capture -f with a filter libpcap cannot compile: exit 2, saying so")
    void badFilter() {
        TestCaptures.Run run = TestCaptures.run("capture", "-i", "lo", "-f", "udp port fourtyseven", "--duration", "1");

        assertThat(run.exitCode()).isEqualTo(Roce4j.USAGE);
        assertThat(run.err()).startsWith("roce4j capture: lo: ");
    }

    private static void waitForTheFileHeader(Path file) throws InterruptedException {
        for (int i = 0; i < 200 && !(Files.exists(file) && file.toFile().length() >= 24); i++) {
            Thread.sleep(50);
        }
        Thread.sleep(200);
    }
}
