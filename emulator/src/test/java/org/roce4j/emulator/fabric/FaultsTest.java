package org.roce4j.emulator.fabric;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.roce4j.emulator.fabric.TestFrames.A;
import static org.roce4j.emulator.fabric.TestFrames.B;
import static org.roce4j.emulator.fabric.TestFrames.frame;
import static org.roce4j.emulator.fabric.TestFrames.roceAck;
import static org.roce4j.emulator.fabric.TestFrames.roceReadResponse;
import static org.roce4j.emulator.fabric.TestFrames.roceSend;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.roce4j.emulator.fabric.TestFrames.Arrival;
import org.roce4j.emulator.fabric.TestFrames.Recorder;
import org.roce4j.wire.DropReason;
import org.roce4j.wire.Opcode;
import org.roce4j.wire.PacketInfo;
import org.roce4j.wire.pcap.CaptureReader;
import org.roce4j.wire.pcap.CapturedPacket;
import org.roce4j.wire.pcap.PcapReader;
import org.roce4j.wire.pcap.PcapRecord;

/** Each fault kind and each way of choosing frames, with exact expectations. */
class FaultsTest {

    private static final long LINK = Fabric.DEFAULT_LINK_DELAY.toNanos();

    private final Fabric fabric = Fabric.deterministic();
    private final Recorder atA = new Recorder("A");
    private final Recorder atB = new Recorder("B");
    private final FabricPort a = fabric.attach(A, atA);
    private final FabricPort b = fabric.attach(B, atB);

    @Test
    @DisplayName("dropNth(3, from A to B) drops exactly the 3rd frame from A to B, not B's frames")
    void scriptedDropHitsExactlyTheFrameItNames() {
        fabric.faults(Faults.seeded(1).dropNth(3, FrameMatch.from(A).andTo(B)));
        for (int psn = 1; psn <= 5; psn++) {
            send(a, roceSend(B, A, psn, new byte[8]));
            send(b, roceSend(A, B, psn, new byte[8]));
        }
        fabric.runUntilIdle();

        assertThat(psns(atB)).containsExactly(1, 2, 4, 5);
        assertThat(psns(atA)).containsExactly(1, 2, 3, 4, 5);
        assertThat(fabric.faultCounters()).isEqualTo(new FaultCounters(1, 0, 0, 0, 0));
        assertThat(fabric.counters().framesDroppedByFilter()).isEqualTo(1);
    }

    @Test
    @DisplayName("duplicate(1.0, ACKS): every ACK delivered twice, byte for byte, right after itself; SENDs once")
    void everyAckIsDuplicated() {
        fabric.faults(Faults.seeded(2).duplicate(1.0, FrameMatch.only(FrameClass.ACKS)));
        byte[] ack1 = roceAck(B, A, 7);
        byte[] send = roceSend(B, A, 8, new byte[4]);
        byte[] ack2 = roceAck(B, A, 9);
        send(a, ack1);
        send(a, send);
        send(a, ack2);
        fabric.runUntilIdle();

        assertThat(atB.arrivals).extracting(Arrival::bytes).containsExactly(ack1, ack1, send, ack2, ack2);
        assertThat(fabric.faultCounters().duplicated()).isEqualTo(2);
        FabricCounters counters = fabric.counters();
        assertThat(counters.framesDuplicatedByFilter()).isEqualTo(2);
        assertThat(counters.framesTransmitted() + counters.framesDuplicatedByFilter())
                .isEqualTo(counters.framesDelivered() + counters.framesDropped() + counters.framesInFlight());
    }

    @Test
    @DisplayName("corruptNth(7): frame 7 alone fails the receiver's ICRC check (BAD_ICRC), one byte changed, MACs intact")
    void scriptedCorruptionIsCaughtByTheIcrc() {
        Faults plan = Faults.seeded(3).corruptNth(7, FrameMatch.any());
        fabric.faults(plan);
        List<byte[]> sent = new ArrayList<>();
        for (int psn = 1; psn <= 10; psn++) {
            sent.add(psn % 2 == 0 ? roceAck(B, A, psn) : roceSend(B, A, psn, new byte[16]));
            send(a, sent.getLast());
        }
        fabric.runUntilIdle();

        PacketInfo info = new PacketInfo();
        for (int i = 0; i < 10; i++) {
            byte[] got = atB.arrivals.get(i).bytes();
            boolean valid = info.parseFrame(got, 0, got.length);
            if (i == 6) {
                assertThat(valid).as("frame 7, %s", plan).isFalse();
                assertThat(info.dropReason()).as(plan.toString()).isEqualTo(DropReason.BAD_ICRC);
                assertOneByteChangedInsideIcrcCoverage(sent.get(i), got, plan);
            } else {
                assertThat(got).as("frame %d, %s", i + 1, plan).isEqualTo(sent.get(i));
            }
        }
        assertThat(fabric.faultCounters().corrupted()).isEqualTo(1);
    }

    @Test
    @DisplayName("corrupt(1.0): every opcode, even a SEND with no payload, fails its ICRC, never a parse check before it")
    void corruptionAlwaysLandsInTheIcrcCoveredBytes() {
        for (long seed = 0; seed < 50; seed++) {
            Faults plan = Faults.seeded(seed).corrupt(1.0);
            fabric.faults(plan);
            atB.arrivals.clear();
            List<byte[]> sent = List.of(roceSend(B, A, 1, new byte[0]), roceAck(B, A, 2),
                    roceReadResponse(B, A, 3, new byte[100]), roceSend(B, A, 4, new byte[3]));
            sent.forEach(f -> send(a, f));
            fabric.runUntilIdle();

            PacketInfo info = new PacketInfo();
            for (int i = 0; i < sent.size(); i++) {
                byte[] got = atB.arrivals.get(i).bytes();
                assertThat(info.parseFrame(got, 0, got.length)).as(plan.toString()).isFalse();
                assertThat(info.dropReason()).as(plan.toString()).isEqualTo(DropReason.BAD_ICRC);
                assertOneByteChangedInsideIcrcCoverage(sent.get(i), got, plan);
            }
        }
    }

    @Test
    @DisplayName("a frame that is not RoCE is corrupted after its Ethernet header")
    void nonRoceFramesAreCorruptedPastTheEthernetHeader() {
        fabric.faults(Faults.seeded(4).corrupt(1.0));
        byte[] sent = frame(B, A, 0x55, 60);
        send(a, sent);
        fabric.runUntilIdle();

        byte[] got = atB.arrivals.getFirst().bytes();
        int differing = 0;
        for (int i = 0; i < sent.length; i++) {
            if (sent[i] != got[i]) {
                differing++;
                assertThat(i).isGreaterThanOrEqualTo(FrameSwitch.ETHERNET_HEADER_LENGTH);
            }
        }
        assertThat(differing).isEqualTo(1);
    }

    @Test
    @DisplayName("delay READ responses by 2 ms: they arrive 2 ms late in virtual time, other frames on time")
    void readResponsesAreDelayed() {
        fabric.faults(Faults.seeded(5).delay(1.0, Duration.ofMillis(2), FrameMatch.only(FrameClass.READ_RESPONSES)));
        send(a, roceReadResponse(B, A, 1, new byte[32]));
        send(a, roceSend(B, A, 2, new byte[32]));
        fabric.runUntilIdle();

        assertThat(atB.arrivals).extracting(Arrival::nowNanos).containsExactly(LINK, 2_000_000 + LINK);
        assertThat(psns(atB)).containsExactly(2, 1);
        assertThat(fabric.clock().nanoTime()).isEqualTo(2_000_000 + LINK);
        assertThat(fabric.faultCounters().delayed()).isEqualTo(1);
    }

    @Test
    @DisplayName("delayNth and duplicateNth by opcode set: only the named frame of those opcodes")
    void scriptedRulesByOpcodeSet() {
        fabric.faults(Faults.seeded(6)
                .delayNth(2, Duration.ofNanos(50_000), FrameMatch.opcodes(Opcode.RC_ACKNOWLEDGE))
                .duplicateNth(1, FrameMatch.opcodes(Opcode.RC_SEND_ONLY).andTo(B)));
        send(a, roceAck(B, A, 1));
        send(a, roceSend(B, A, 2, new byte[1]));
        send(a, roceAck(B, A, 3));
        send(a, roceSend(B, A, 4, new byte[1]));
        fabric.runUntilIdle();

        assertThat(psns(atB)).containsExactly(1, 2, 2, 4, 3);
        assertThat(atB.arrivals.getLast().nowNanos()).isEqualTo(50_000 + LINK);
    }

    @Test
    @DisplayName("per direction and per class: drop(1.0, from B) and drop(1.0, ACKS) leave everything else alone")
    void directionAndClassFilters() {
        fabric.faults(Faults.seeded(7).drop(1.0, FrameMatch.from(B)).drop(1.0, FrameMatch.only(FrameClass.ACKS)));
        send(a, roceAck(B, A, 1));
        send(a, roceSend(B, A, 2, new byte[1]));
        send(a, frame(B, A, 1, 60)); // not RoCE: no class matches it
        send(b, roceSend(A, B, 3, new byte[1]));
        fabric.runUntilIdle();

        assertThat(atB.arrivals).hasSize(2);
        assertThat(psns(atB)).containsExactly(2);
        assertThat(atA.arrivals).isEmpty();
        assertThat(fabric.faultCounters().dropped()).isEqualTo(2);
    }

    @Test
    @DisplayName("the tap shows what the wire carried: a dropped frame as sent, a duplicated one twice, a corrupted one corrupted, a held-back one when it arrived")
    void theTapShowsWhatTheWireCarried(@TempDir Path dir) throws IOException {
        Path pcap = dir.resolve("faults.pcap");
        fabric.tap(pcap);
        fabric.faults(Faults.seeded(8).dropNth(1, FrameMatch.any()).duplicateNth(2, FrameMatch.any())
                .corruptNth(3, FrameMatch.any()).delayNth(4, Duration.ofNanos(6_000), FrameMatch.any()));
        List<byte[]> sent = List.of(roceSend(B, A, 1, new byte[4]), roceSend(B, A, 2, new byte[4]),
                roceSend(B, A, 3, new byte[4]), roceSend(B, A, 4, new byte[4]));
        sent.forEach(f -> send(a, f));
        fabric.runUntilIdle();
        fabric.close();

        List<PcapRecord> captured = new ArrayList<>();
        try (PcapReader reader = PcapReader.open(pcap)) {
            reader.forEach(captured::add);
        }
        assertThat(captured).extracting(PcapRecord::timestampNanos).containsExactly(0L, LINK, LINK, LINK, LINK + 6_000);
        assertThat(captured).extracting(PcapRecord::data).satisfiesExactly(
                dropped -> assertThat(dropped).isEqualTo(sent.get(0)),
                duplicate -> assertThat(duplicate).isEqualTo(sent.get(1)),
                duplicate -> assertThat(duplicate).isEqualTo(sent.get(1)),
                corrupted -> assertThat(corrupted).hasSameSizeAs(sent.get(2)).isNotEqualTo(sent.get(2))
                        .isEqualTo(atB.arrivals.get(2).bytes()),
                late -> assertThat(late).isEqualTo(sent.get(3)));
        assertThat(fabric.faultCounters()).isEqualTo(new FaultCounters(1, 1, 1, 1, 0));
    }

    @Test
    @DisplayName("in a pcapng capture each frame the plan touched says what was done to it, naming the rule as describe() numbers it")
    void aPcapngCaptureCommentsOnEveryFrameThePlanTouched(@TempDir Path dir) throws IOException {
        Path pcap = dir.resolve("faults.pcapng");
        fabric.tap(pcap);
        Faults plan = Faults.seeded(8).dropNth(1, FrameMatch.any()).duplicateNth(2, FrameMatch.any())
                .corruptNth(3, FrameMatch.any()).delayNth(3, Duration.ofNanos(2_500), FrameMatch.any())
                .delayNth(3, Duration.ofNanos(500), FrameMatch.any());
        fabric.faults(plan);
        for (int psn = 1; psn <= 4; psn++) {
            send(a, roceSend(B, A, psn, new byte[4]));
        }
        fabric.runUntilIdle();
        fabric.close();

        List<CapturedPacket> captured = new ArrayList<>();
        try (CaptureReader reader = CaptureReader.open(pcap)) {
            reader.forEach(captured::add);
        }
        assertThat(captured).extracting(CapturedPacket::comments).containsExactly(
                List.of("dropped by rule 1"),
                List.of(),
                List.of("duplicated by rule 2"),
                List.of(),
                List.of("ICRC corrupted by rule 3", "held back 3 µs by rules 4 and 5"));
        assertThat(plan.describe()).contains("\n  rule 1: drop frame 1", "\n  rule 5: delay");
    }

    @Test
    @DisplayName("describe() and toString() name the seed and every rule")
    void thePlanPrintsItsSeed() {
        Faults plan = Faults.seeded(42).drop(0.3).reorder(0.1, Duration.ofNanos(4_000))
                .dropNth(3, FrameMatch.from(A).andTo(B)).duplicate(1.0, FrameMatch.only(FrameClass.ACKS));

        assertThat(plan.toString()).startsWith("Faults(seed=42, ").contains("drop any frame from any to any, probability 0.3")
                .contains("drop frame 3 of any frame from 02:00:00:00:00:0a to 02:00:00:00:00:0b")
                .contains("reorder within 4000 ns any frame").contains("duplicate ACKS from any to any, probability 1.0");
        assertThat(plan.describe()).startsWith("faults, seed 42:\n  rule 1: drop").contains("\n  rule 4: duplicate")
                .hasLineCount(5);
        assertThat(Faults.seeded(9).describe()).isEqualTo("faults, seed 9: none");
    }

    @Test
    @DisplayName("a plan is immutable: adding a rule returns a new plan")
    void plansAreImmutable() {
        Faults empty = Faults.seeded(1);
        Faults one = empty.drop(0.5);
        assertThat(empty.isEmpty()).isTrue();
        assertThat(one.isEmpty()).isFalse();
        assertThat(one.seed()).isEqualTo(1);
    }

    @Test
    @DisplayName("bad rules are refused when the plan is built")
    void badRulesAreRefused() {
        Faults plan = Faults.seeded(1);
        assertThatThrownBy(() -> plan.drop(1.5)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> plan.drop(Double.NaN)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> plan.corrupt(-0.1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> plan.dropNth(0, FrameMatch.any())).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> plan.reorder(0.5, Duration.ZERO)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> plan.delay(1, Duration.ofNanos(-1), FrameMatch.any()))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> FrameMatch.only()).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    @DisplayName("a run that hits its limit names the fault plan and its seed, so it replays")
    void runLimitNamesTheSeed() {
        fabric.runUntilIdleLimits(100, Duration.ofSeconds(1));
        fabric.faults(Faults.seeded(1234).drop(0.5));
        fabric.addAgent(now -> 1); // always busy
        assertThatThrownBy(fabric::runUntilIdle).isInstanceOf(RunLimitExceededException.class)
                .hasMessageContaining("seed=1234");
    }

    @Test
    @DisplayName("filter(PASS_ALL) removes the plan; its counters are no longer reported")
    void aFilterReplacesThePlan() {
        fabric.faults(Faults.seeded(1).drop(1.0));
        assertThat(fabric.faults()).isNotNull();
        fabric.filter(FrameFilter.PASS_ALL);
        send(a, roceSend(B, A, 1, new byte[1]));
        fabric.runUntilIdle();
        assertThat(atB.arrivals).hasSize(1);
        assertThat(fabric.faults()).isNull();
        assertThat(fabric.faultCounters()).isEqualTo(FaultCounters.NONE);
    }

    static void assertOneByteChangedInsideIcrcCoverage(byte[] sent, byte[] got, Faults plan) {
        PacketInfo original = new PacketInfo();
        assertThat(original.parseFrame(sent, 0, sent.length)).isTrue();
        int differing = 0;
        for (int i = 0; i < sent.length; i++) {
            if (sent[i] != got[i]) {
                differing++;
                assertThat(i).as("changed byte, %s", plan)
                        .isGreaterThanOrEqualTo(original.bthOffset() + 9).isLessThan(original.icrcOffset());
            }
        }
        assertThat(differing).as("bytes changed, %s", plan).isEqualTo(1);
    }

    static List<Integer> psns(Recorder recorder) {
        PacketInfo info = new PacketInfo();
        List<Integer> psns = new ArrayList<>();
        for (Arrival arrival : recorder.arrivals) {
            if (info.parseFrame(arrival.bytes(), 0, arrival.bytes().length)) {
                psns.add(info.psn());
            }
        }
        return psns;
    }

    private static void send(FabricPort port, byte[] frame) {
        port.transmit(frame, 0, frame.length);
    }
}
