package org.roce4j.tools;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.roce4j.emulator.fabric.Faults;
import org.roce4j.emulator.fabric.FrameClass;
import org.roce4j.emulator.fabric.FrameMatch;
import org.roce4j.testing.RequiredInCi;
import org.roce4j.wire.Aeth;
import org.roce4j.wire.AethSyndrome;
import org.roce4j.wire.DecodeResult;
import org.roce4j.wire.DropReason;
import org.roce4j.wire.MacAddress;
import org.roce4j.wire.NakCode;
import org.roce4j.wire.RoceDecoder;
import org.roce4j.wire.RoceFrame;
import org.roce4j.wire.pcap.PcapRecord;

/**
 * {@code roce4j demo} over a faulty link: the same completions and the same memory as without
 * faults, a summary of what the faults did and how the RNICs recovered, and a capture that shows
 * the recovery. Every run names its seed, and the same options replay it.
 *
 * <p>Recovery comes from NAK-driven go-back-N, duplicate detection, the ICRC check and, for a lost
 * last packet or a lost ACK, nothing but the requester's local ACK timeout (IBTA 9.7.6.1.3).
 */
class DemoFaultsTest {
    /** A replay: one fault of each kind, recovered by a PSN sequence NAK and go-back-N, no timer needed. */
    private static final String[] EVERY_FAULT_SEED_17 = {"--loss", "0.05", "--reorder", "0.05", "--duplicate", "0.05",
            "--corrupt", "0.05", "--seed", "17"};
    private static final MacAddress NODE_A = MacAddress.parse("02:00:00:00:00:0a");


    @TempDir
    Path dir;

    @ParameterizedTest(name = "{0} {1}")
    @CsvSource({"--loss, 1.5", "--reorder, -0.1", "--duplicate, NaN", "--corrupt, 2", "--loss, x", "--seed, y"})
    @DisplayName("a probability outside 0..1, or no number, is a usage error (exit 2) naming the option")
    void badFaultOptionsAreUsageErrors(String option, String value) {
        TestCaptures.Run run = TestCaptures.run("demo", option, value, "--pcap", dir.resolve("x.pcap").toString());
        assertThat(run.exitCode()).as(run.out() + run.err()).isEqualTo(2);
        assertThat(run.err()).contains(option);
    }

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(strings = {"1", "2", "3", "4", "5"})
    @DisplayName("--duplicate 0.2: the same completions and memory as without faults; duplicates seen and said")
    void duplicatesChangeNothing(String seed) {
        TestCaptures.Run run = demo("--duplicate", "0.2", "--seed", seed);
        assertThat(run.exitCode()).as(run.out()).isZero();
        assertThat(outcome(run)).as("seed " + seed).isEqualTo(outcome(faultFree()));
        assertThat(run.out()).containsPattern("faults \\(seed " + seed + "\\): 0 dropped, [1-9]\\d* duplicated");
    }

    @Test
    @DisplayName("every fault kind at seed 17: same completions and memory; the summary counts each fault, the NAK and the go-back")
    void everyFaultKindRecovered() {
        TestCaptures.Run run = demo(EVERY_FAULT_SEED_17);
        assertThat(run.exitCode()).as(run.out()).isZero();
        assertThat(outcome(run)).as("seed 17").isEqualTo(outcome(faultFree()));
        assertThat(run.out()).contains("faults, seed 17:", "reorder within 8000 ns",
                "faults (seed 17): 1 dropped, 1 duplicated, 1 corrupted (1 caught by an ICRC check)")
                .containsPattern("recovery: [1-9]\\d* retransmissions \\(requester went back\\), [1-9]\\d* NAKs sent")
                .contains("7 of 7 steps correct").doesNotContain("WRONG", "STUCK");
    }

    @Test
    @DisplayName("the capture at seed 17 shows a PSN sequence NAK and a retransmitted PSN (roce4j's decoder and tshark agree)")
    void captureShowsNakAndRetransmission() throws Exception {
        Path pcap = dir.resolve("faults.pcap");
        assertThat(demo(pcap, EVERY_FAULT_SEED_17).exitCode()).isZero();
        List<RoceFrame> frames = decodeAll(pcap);

        // The tap is where the wire is: every frame as it arrived (the corrupted one with a bad ICRC), a dropped one as sent.
        assertThat(frames).hasSize(TestCaptures.read(pcap).size());
        long naks = frames.stream().filter(DemoFaultsTest::isSequenceNak).count();
        assertThat(naks).as("PSN sequence error NAKs, seed 17").isPositive();
        Map<Integer, Integer> sentByA = requestPsnCounts(frames);
        assertThat(sentByA.values()).as("a request PSN A sent more than once, seed 17").anyMatch(n -> n > 1);

        String tshark = TsharkCrossCheckTest.which("tshark");
        RequiredInCi.require(tshark != null, "tshark: the Wireshark view of the fault capture was NOT checked");
        List<String[]> rows = tshark(tshark, pcap, "infiniband.aeth.syndrome", "eth.src", "infiniband.bth.psn",
                "infiniband.bth.opcode");
        assertThat(rows).hasSize(frames.size());
        long wiresharkNaks = rows.stream().filter(r -> r[0].equals("0x60") || r[0].equals("96")).count();
        assertThat(wiresharkNaks).as("NAKs as tshark sees them").isEqualTo(naks);
        Map<Integer, Integer> wiresharkSentByA = new HashMap<>();
        for (String[] row : rows) {
            int opcode = Integer.decode(row[3]);
            if (row[1].equals(NODE_A.toString()) && opcode != 0x11 && opcode != 0x12) { // not (atomic) ACKs
                wiresharkSentByA.merge(Integer.parseInt(row[2]), 1, Integer::sum);
            }
        }
        assertThat(wiresharkSentByA).isEqualTo(sentByA);
    }

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(ints = {7, 8, 9})
    @DisplayName("the capture shows what the faults did: decode counts an ICRC BAD per corrupted frame, and the pcapng comments one line per drop, duplicate and corruption")
    void decodeOfTheCaptureCountsWhatTheFaultsDid(int seed) {
        Path pcapng = dir.resolve("faults-" + seed + ".pcapng");
        TestCaptures.Run run = demo(pcapng, "--loss", "0.1", "--duplicate", "0.1", "--corrupt", "0.2",
                "--seed", String.valueOf(seed));
        java.util.regex.Matcher said = java.util.regex.Pattern
                .compile("faults \\(seed \\d+\\): (\\d+) dropped, (\\d+) duplicated, (\\d+) corrupted").matcher(run.out());
        assertThat(said.find()).as(run.out()).isTrue();
        int dropped = Integer.parseInt(said.group(1));
        int duplicated = Integer.parseInt(said.group(2));
        int corrupted = Integer.parseInt(said.group(3));
        assertThat(corrupted).as("seed %d corrupts something", seed).isPositive();

        TestCaptures.Run decode = TestCaptures.run("decode", pcapng.toString());
        List<List<String>> frames = new ArrayList<>(); // each frame's line, then its comments
        for (String line : decode.lines()) {
            if (line.matches("\\d+ .*")) {
                frames.add(new ArrayList<>(List.of(line)));
            } else if (line.startsWith("    comment: ")) {
                frames.getLast().add(line.substring("    comment: ".length()));
            }
        }
        List<List<String>> bad = frames.stream().filter(f -> f.getFirst().endsWith(" ICRC BAD")).toList();
        assertThat(decode.out()).contains("ICRC failures:         " + bad.size() + "\n");
        assertThat(bad).as("every frame with a bad ICRC is one the plan corrupted, and the other way round")
                .isEqualTo(frames.stream().filter(f -> says(f, "ICRC corrupted by rule ")).toList());
        assertThat(frames).filteredOn(f -> says(f, "dropped by rule ")).hasSize(dropped);
        assertThat(frames).filteredOn(f -> says(f, "duplicated by rule ")).hasSize(duplicated);
        assertThat(frames).as("corrupted once each; a duplicate of a corrupted frame is corrupted too")
                .filteredOn(f -> says(f, "ICRC corrupted by rule ") && !says(f, "duplicated by rule ")).hasSize(corrupted);
        assertThat(run.out()).as("the demo says how many frames the capture holds, duplicates and drops too")
                .contains(frames.size() + " frames written to " + pcapng);
    }

    private static boolean says(List<String> frame, String comment) {
        return frame.stream().skip(1).anyMatch(c -> c.startsWith(comment));
    }

    @Test
    @DisplayName("the same options and seed write the same capture byte for byte; another seed does not")
    void faultRunsReplay() throws Exception {
        Path first = dir.resolve("first.pcap");
        Path second = dir.resolve("second.pcap");
        Path other = dir.resolve("other.pcap");
        demo(first, "--reorder", "0.2", "--duplicate", "0.2", "--seed", "9");
        demo(second, "--reorder", "0.2", "--duplicate", "0.2", "--seed", "9");
        demo(other, "--reorder", "0.2", "--duplicate", "0.2", "--seed", "10");
        assertThat(Files.mismatch(first, second)).isEqualTo(-1L);
        assertThat(Files.mismatch(first, other)).isNotEqualTo(-1L);
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    @DisplayName("a run that cannot finish (--loss 1) ends with exit 1 and names the seed, never hangs")
    void hopelessRunEndsAndNamesItsSeed() {
        TestCaptures.Run run = demo("--loss", "1", "--seed", "5");
        assertThat(run.exitCode()).as(run.out()).isEqualTo(1);
        // Everything lost: the requester's retries run out (RETRY_EXC_ERR), the receiver never sees
        // the message; the run ends WRONG or STUCK, naming the seed.
        assertThat(run.out()).contains("RETRY_EXC_ERR").contains("0 of 1 steps correct")
                .containsPattern("(STUCK at step 1|WRONG under faults)")
                .contains("seed 5: the same options replay this run");
    }

    // ---- recovery by the local ACK timeout -------------------------------------------------------

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(ints = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20})
    @DisplayName("5% of every fault, any seed: the same completions and memory as without faults")
    void anySeedRecovers(int seed) {
        TestCaptures.Run run = demo("--loss", "0.05", "--reorder", "0.05", "--duplicate", "0.05", "--corrupt", "0.05",
                "--seed", String.valueOf(seed));
        assertThat(run.exitCode()).as(run.out()).isZero();
        assertThat(outcome(run)).as("seed " + seed).isEqualTo(outcome(faultFree()));
    }

    @Test
    @DisplayName("IBTA 9.7.6.1.3: a lost ACK is recovered by the ACK timeout: the SEND's PSN sent again ~67 ms later, no NAK")
    void lostAckRecoveredByTimeout() throws Exception {
        Path pcap = dir.resolve("lost-ack.pcap");
        Faults plan = Faults.seeded(0).dropNth(1, FrameMatch.only(FrameClass.ACKS));
        assertThat(DemoCommand.run(pcap, DemoCommand.DEFAULT_MTU, plan, quiet())).as(plan.toString()).isTrue();
        List<PcapRecord> records = TestCaptures.read(pcap);
        List<RoceFrame> frames = decodeAll(pcap);
        List<Long> firstSendTimes = new ArrayList<>();
        for (int i = 0; i < frames.size(); i++) {
            if (frames.get(i).packet().bth().psn() == 0x1000 && frames.get(i).packet().opcode().isRequest()) {
                firstSendTimes.add(records.get(i).timestampNanos());
            }
        }
        assertThat(firstSendTimes).as("PSN 0x1000 (the first SEND) on the wire").hasSize(2);
        // timeout 14 in the demo: 4.096 µs * 2^14 = 67.1 ms (IBTA 9.7.6.1.3)
        assertThat(firstSendTimes.get(1) - firstSendTimes.get(0)).isBetween(60_000_000L, 1_000_000_000L);
        assertThat(frames.stream().filter(DemoFaultsTest::isSequenceNak)).isEmpty();
    }

    private TestCaptures.Run demo(String... options) {
        return demo(dir.resolve("demo-" + System.nanoTime() + ".pcap"), options);
    }

    private static TestCaptures.Run demo(Path pcap, String... options) {
        List<String> args = new ArrayList<>(List.of("demo", "--pcap", pcap.toString()));
        args.addAll(List.of(options));
        return TestCaptures.run(args.toArray(String[]::new));
    }

    private TestCaptures.Run faultFree() {
        TestCaptures.Run run = demo();
        assertThat(run.exitCode()).isZero();
        // 7 steps, 10 completions, 9 data checks: the comparison has something to compare.
        assertThat(outcome(run)).hasSize(26);
        return run;
    }

    /** The steps, every completion and every data check the demo printed: what faults must not change. */
    private static List<String> outcome(TestCaptures.Run run) {
        return run.lines().stream().filter(line -> line.matches("\\[\\d+].*|    [AB]  .*|    data: .*|    WRONG.*"))
                .toList();
    }

    private static List<RoceFrame> decodeAll(Path pcap) throws java.io.IOException {
        RoceDecoder decoder = new RoceDecoder();
        return TestCaptures.read(pcap).stream().map(record -> decoder.decode(record.data()))
                .map(result -> switch (result) {
                    case DecodeResult.Decoded decoded -> decoded.frame();
                    // a frame the fault plan corrupted, captured as the wire carried it
                    case DecodeResult.Dropped dropped when dropped.reason() == DropReason.BAD_ICRC -> dropped.parsedFrame();
                    default -> throw new AssertionError("not a RoCE frame as sent or corrupted: " + result);
                }).toList();
    }

    private static boolean isSequenceNak(RoceFrame frame) {
        return frame.packet().header(Aeth.class).map(Aeth::syndrome)
                .filter(s -> s instanceof AethSyndrome.Nak nak && nak.code() == NakCode.PSN_SEQUENCE_ERROR)
                .isPresent();
    }

    /** How often A put each request PSN on the wire. */
    private static Map<Integer, Integer> requestPsnCounts(List<RoceFrame> frames) {
        Map<Integer, Integer> counts = new HashMap<>();
        for (RoceFrame frame : frames) {
            if (frame.ethernet().source().equals(NODE_A) && frame.packet().opcode().isRequest()) {
                counts.merge(frame.packet().bth().psn(), 1, Integer::sum);
            }
        }
        return counts;
    }

    private static List<String[]> tshark(String tshark, Path pcap, String... fields) throws Exception {
        List<String> command = new ArrayList<>(List.of(tshark, "-r", pcap.toString(), "-n", "-T", "fields",
                "-E", "separator=/t"));
        for (String field : fields) {
            command.addAll(List.of("-e", field));
        }
        Process process = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.DISCARD).start();
        String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(process.exitValue()).as("tshark exit code").isZero();
        return out.lines().map(line -> line.split("\t", -1)).toList();
    }

    private static PrintWriter quiet() {
        return new PrintWriter(Writer.nullWriter());
    }
}
