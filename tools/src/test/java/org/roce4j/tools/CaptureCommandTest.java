package org.roce4j.tools;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.roce4j.wire.pcap.PcapRecord;
import picocli.CommandLine;

/** roce4j capture without a network: its loop fed from committed captures, and its argument checks. */
class CaptureCommandTest {
    private static final Path DEMO = TestCaptures.committed("demo.pcap");
    private static final Path ALL_OPCODES = TestCaptures.committed(AllOpcodesCapture.IPV4_FILE);

    /** The loop's output and exit code after reading {@code frames} with the given command line. */
    private record Capture(int exitCode, List<String> lines) {}

    private static Capture capture(List<PcapRecord> frames, long count, long summaryEveryNanos, String... args)
            throws Exception {
        CaptureCommand command = new CaptureCommand();
        new CommandLine(command).parseArgs(args);
        ArrayDeque<PcapRecord> queue = new ArrayDeque<>(frames);
        AtomicLong clock = new AtomicLong();
        AtomicBoolean stop = new AtomicBoolean();
        // Each frame (or empty read, once the list is out) costs 1 ms on the test's clock; an empty read stops.
        CaptureCommand.FrameSource source = () -> {
            clock.addAndGet(1_000_000);
            PcapRecord next = queue.poll();
            if (next == null) {
                stop.set(true);
            }
            return Optional.ofNullable(next);
        };
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        PrintWriter out = new PrintWriter(new OutputStreamWriter(bytes, UTF_8));
        int exit = command.capture(source, new CaptureCommand.Limits(count, 0, summaryEveryNanos, stop), clock::get, out);
        out.flush();
        return new Capture(exit, bytes.toString(UTF_8).lines().toList());
    }

    @Test
    @DisplayName("capture: each frame printed as decode prints it, then one summary line per destination QP and decode's counts")
    void summaryPerDestinationQp() throws Exception {
        Capture run = capture(TestCaptures.read(DEMO), 0, 0, "-i", "test0");

        assertThat(run.exitCode()).isZero();
        assertThat(run.lines()).startsWith(
                "1 0.000000000 10.0.0.1 → 10.0.0.2 RC Send Only QP=0x000011 PSN=0x001000 payload=64 ICRC ok");
        assertThat(run.lines().subList(23, run.lines().size())).containsExactly(
                "summary after 23 frames, per destination QP:",
                "    10.0.0.1 QP 0x000011: 10 frames, 4724 bytes, 0 bad ICRC, 0 NAKs, 0 RNR NAKs",
                "    10.0.0.2 QP 0x000011: 13 frames, 9130 bytes, 0 bad ICRC, 0 NAKs, 0 RNR NAKs",
                "frames:                23",
                "RoCE frames:           23",
                "ICRC failures:         0",
                "malformed RoCE frames: 0",
                "non-RoCE frames:       0",
                "drops by reason:       none");
    }

    @Test
    @DisplayName("capture: NAKs and RNR NAKs are counted for the QP they are sent to, bad ICRCs for theirs, and exit 1")
    void naksAndBadIcrcsPerQp() throws Exception {
        List<PcapRecord> frames = new java.util.ArrayList<>(TestCaptures.read(ALL_OPCODES).subList(0, 19));
        PcapRecord spoiled = frames.get(6);
        byte[] data = spoiled.data().clone();
        data[data.length - 1] ^= 1;
        frames.set(6, new PcapRecord(spoiled.timestampNanos(), spoiled.originalLength(), data));

        Capture run = capture(frames, 0, 0, "-i", "test0");

        assertThat(run.exitCode()).as("a bad ICRC: exit 1, as decode").isEqualTo(1);
        assertThat(run.lines()).contains(
                "    192.0.2.1 QP 0x000011: 6 frames, 1052 bytes, 0 bad ICRC, 1 NAKs, 0 RNR NAKs",
                "    192.0.2.2 QP 0x000012: 13 frames, 2266 bytes, 1 bad ICRC, 0 NAKs, 0 RNR NAKs",
                "ICRC failures:         1");
    }

    @Test
    @DisplayName("capture -c 5 stops after 5 frames; --summary-every prints the running summary on its clock")
    void countAndPeriodicSummary() throws Exception {
        Capture run = capture(TestCaptures.read(DEMO), 5, 2_000_000, "-i", "test0", "-c", "5");

        assertThat(run.lines()).filteredOn(line -> line.matches("\\d+ .*")).hasSize(5);
        assertThat(run.lines()).containsSubsequence(
                "after 2 frames, per destination QP:",
                "    10.0.0.1 QP 0x000011: 1 frames, 62 bytes, 0 bad ICRC, 0 NAKs, 0 RNR NAKs", // the ACK: 58 + AETH 4
                "    10.0.0.2 QP 0x000011: 1 frames, 122 bytes, 0 bad ICRC, 0 NAKs, 0 RNR NAKs", // SEND: 58 + 64 payload
                "after 4 frames, per destination QP:",
                "summary after 5 frames, per destination QP:");
    }

    @Test
    @DisplayName("capture -w writes every frame as it came (pcap or pcapng by the name); --analyze appends the analysis")
    void writesTheFileAndAnalyzes(@TempDir Path dir) throws Exception {
        List<PcapRecord> demo = TestCaptures.read(DEMO);
        Path pcap = dir.resolve("live.pcap");
        Path pcapng = dir.resolve("live.pcapng");

        Capture run = capture(demo, 0, 0, "-i", "test0", "-w", pcap.toString(), "--analyze");
        capture(demo, 0, 0, "-i", "test0", "-w", pcapng.toString());

        assertThat(TestCaptures.read(pcap)).isEqualTo(demo);
        TestCaptures.Run decoded = TestCaptures.run("decode", pcapng.toString());
        assertThat(decoded.exitCode()).isZero();
        assertThat(decoded.lines()).contains("RoCE frames:           23");
        assertThat(run.exitCode()).isZero();
        assertThat(run.lines()).contains("protocol check: clean")
                .anyMatch(line -> line.startsWith("RC connection 10.0.0.1 QP 0x000011 <-> 10.0.0.2 QP 0x000011"));
    }

    @ParameterizedTest(name = "roce4j {0}: exit 2, {1}")
    @CsvSource(delimiter = '|', value = {
        "capture|Missing required option: '--interface=IFACE'",
        "capture -i lo -c -1|-c, --duration and --summary-every cannot be negative",
        "capture -i lo --duration x|Invalid value for option '--duration'"})
    void wrongArgumentsAreUsageErrors(String line, String message) {
        TestCaptures.Run run = TestCaptures.run(line.split(" "));

        assertThat(run.exitCode()).isEqualTo(Roce4j.USAGE);
        assertThat(run.err()).contains(message);
        assertThat(run.out()).isEmpty();
    }

    @Test
    @DisplayName("capture --help names every option and the exit codes")
    void helpNamesTheOptions() {
        TestCaptures.Run run = TestCaptures.run("capture", "--help");

        assertThat(run.exitCode()).isZero();
        assertThat(run.out().replaceAll("\\s+", " ")).contains("--interface=IFACE", "--write=FILE", "--analyze", "--count=COUNT", "--duration=S",
                "--filter=BPF", "default: udp port 4791", "--summary-every=S", "Exit codes:");
    }

    @Test
    @DisplayName("without libpcap capture and replay stop with one line naming the Debian package, exit 2")
    void missingLibpcapIsOneLine() throws Exception {
        for (String command : List.of("capture -i lo --duration 1", "replay " + DEMO + " -i lo")) {
            List<String> args = new java.util.ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "--enable-native-access=ALL-UNNAMED", "-Dorg.pcap4j.core.pcapLibName=/nonexistent/libpcap.so",
                    "-cp", System.getProperty("java.class.path"), Roce4j.class.getName()));
            args.addAll(List.of(command.split(" ")));
            Process process = new ProcessBuilder(args).start();
            String err = new String(process.getErrorStream().readAllBytes(), UTF_8);
            process.getInputStream().readAllBytes();

            assertThat(process.waitFor()).as(command).isEqualTo(Roce4j.USAGE);
            assertThat(err.lines().toList()).as(command).containsExactly("roce4j " + command.split(" ")[0]
                    + ": libpcap is missing (Debian: apt-get install libpcap0.8): Unable to load library '/nonexistent/libpcap.so'");
        }
    }
}
