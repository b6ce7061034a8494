package org.roce4j.emulator.fabric;

import static org.assertj.core.api.Assertions.assertThat;
import static org.roce4j.emulator.fabric.TestFrames.A;
import static org.roce4j.emulator.fabric.TestFrames.B;
import static org.roce4j.emulator.fabric.TestFrames.C;
import static org.roce4j.emulator.fabric.TestFrames.roceAck;
import static org.roce4j.emulator.fabric.TestFrames.roceSend;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.roce4j.emulator.fabric.TestFrames.Arrival;
import org.roce4j.emulator.fabric.TestFrames.Recorder;
import org.roce4j.wire.PacketInfo;

/**
 * Seeded randomness: one seed gives one delivery sequence, byte for byte and nanosecond for
 * nanosecond; probabilities come out near what was asked; reordering stays within its window.
 * Every assertion message carries the plan and so its seed.
 */
class FaultReplayTest {

    private static final long LINK = Fabric.DEFAULT_LINK_DELAY.toNanos();
    /** Transmit spacing of the traffic below. */
    private static final long SPACING = 1_000;

    private static Faults everything(long seed) {
        return Faults.seeded(seed).drop(0.1).duplicate(0.1).corrupt(0.1).reorder(0.2, Duration.ofNanos(5_000))
                .delay(0.05, Duration.ofNanos(20_000), FrameMatch.only(FrameClass.ACKS));
    }

    @Test
    @DisplayName("the same seed gives the identical delivery sequence, bytes and times; another seed does not")
    void sameSeedSameRun() {
        List<Arrival> first = run(everything(42), 300);
        List<Arrival> second = run(everything(42), 300);
        List<Arrival> other = run(everything(43), 300);

        assertThat(second).as("seed 42 twice").usingRecursiveFieldByFieldElementComparator()
                .hasSameSizeAs(first);
        for (int i = 0; i < first.size(); i++) {
            assertThat(second.get(i).toString()).as("arrival %d, %s", i, everything(42)).isEqualTo(first.get(i).toString());
        }
        assertThat(other.toString()).as("seeds 42 and 43 gave the same run").isNotEqualTo(first.toString());
    }

    @Test
    @DisplayName("a rule's choices do not change when another rule, for other frames, is added")
    void rulesDrawFromTheirOwnStreams() {
        Faults alone = Faults.seeded(7).drop(0.3);
        Faults withAnother = alone.duplicate(0.5, FrameMatch.to(C)); // no traffic goes to C
        assertThat(run(withAnother, 200).toString()).as("%s vs %s", alone, withAnother)
                .isEqualTo(run(alone, 200).toString());
    }

    @Test
    @DisplayName("drop(0.3) drops about 30% of 2000 frames, and every frame is delivered or counted")
    void dropProbability() {
        Faults plan = Faults.seeded(11).drop(0.3);
        Fabric fabric = Fabric.deterministic();
        List<Arrival> arrivals = traffic(fabric, plan, 2000);
        long dropped = fabric.faultCounters().dropped();

        // Binomial(2000, 0.3): mean 600, standard deviation 20.5; ±5 sd.
        assertThat(dropped).as(plan.toString()).isBetween(498L, 702L);
        assertThat(arrivals).as(plan.toString()).hasSize(2000 - (int) dropped);
        assertThat(fabric.counters().framesDroppedByFilter()).isEqualTo(dropped);
    }

    @Test
    @DisplayName("duplicate(0.2) and corrupt(0.2): about 20% each; every corrupted frame fails its ICRC")
    void duplicateAndCorruptProbabilities() {
        Faults plan = Faults.seeded(12).duplicate(0.2).corrupt(0.2);
        Fabric fabric = Fabric.deterministic();
        List<Arrival> arrivals = traffic(fabric, plan, 2000);
        FaultCounters counters = fabric.faultCounters();

        // Binomial(2000, 0.2): mean 400, standard deviation 17.9; ±5 sd.
        assertThat(counters.duplicated()).as(plan.toString()).isBetween(310L, 490L);
        assertThat(counters.corrupted()).as(plan.toString()).isBetween(310L, 490L);
        assertThat(arrivals).as(plan.toString()).hasSize(2000 + (int) counters.duplicated());
        PacketInfo info = new PacketInfo();
        long badIcrc = arrivals.stream().filter(x -> !info.parseFrame(x.bytes(), 0, x.bytes().length)).count();
        // A duplicate of a corrupted frame is corrupted too: at least one bad frame per corruption.
        assertThat(badIcrc).as(plan.toString()).isGreaterThanOrEqualTo(counters.corrupted())
                .isLessThanOrEqualTo(2 * counters.corrupted());
    }

    @Test
    @DisplayName("reorder(0.5, 4 µs): each frame arrives within [nominal, nominal + 4 µs], and later frames overtake")
    void reorderStaysWithinItsWindow() {
        Faults plan = Faults.seeded(13).reorder(0.5, Duration.ofNanos(4_000));
        Fabric fabric = Fabric.deterministic();
        List<Arrival> arrivals = traffic(fabric, plan, 1000);
        PacketInfo info = new PacketInfo();
        int late = 0;
        int overtaken = 0;
        int highestPsn = -1;
        for (Arrival arrival : arrivals) {
            assertThat(info.parseFrame(arrival.bytes(), 0, arrival.bytes().length)).isTrue();
            long nominal = info.psn() * SPACING + LINK;
            assertThat(arrival.nowNanos()).as("PSN %d, %s", info.psn(), plan).isBetween(nominal, nominal + 4_000);
            late += arrival.nowNanos() > nominal ? 1 : 0;
            overtaken += info.psn() < highestPsn ? 1 : 0;
            highestPsn = Math.max(highestPsn, info.psn());
        }
        assertThat(arrivals).hasSize(1000);
        assertThat(late).as(plan.toString()).isEqualTo((int) fabric.faultCounters().reordered()).isBetween(400, 600);
        assertThat(overtaken).as(plan.toString()).isGreaterThan(100);
    }

    private static List<Arrival> run(Faults plan, int frames) {
        return traffic(Fabric.deterministic(), plan, frames);
    }

    /**
     * {@code frames} frames, PSN i transmitted at i µs, alternating A→B SENDs and B→A ACKs.
     * Returns every arrival at A and B, in delivery order.
     */
    private static List<Arrival> traffic(Fabric fabric, Faults plan, int frames) {
        List<Arrival> log = new ArrayList<>();
        FabricPort a = fabric.attach(A, new Recorder("A", log));
        FabricPort b = fabric.attach(B, new Recorder("B", log));
        fabric.attach(C, new Recorder("C", log));
        fabric.faults(plan);
        for (int psn = 0; psn < frames; psn++) {
            byte[] frame = psn % 2 == 0 ? roceSend(B, A, psn, new byte[psn % 64]) : roceAck(A, B, psn);
            (psn % 2 == 0 ? a : b).transmit(frame, 0, frame.length);
            fabric.runFor(Duration.ofNanos(SPACING));
        }
        fabric.runUntilIdle();
        return log;
    }
}
