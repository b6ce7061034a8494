package org.roce4j.emulator.fabric;

import static org.assertj.core.api.Assertions.assertThat;
import static org.roce4j.emulator.fabric.TestFrames.A;
import static org.roce4j.emulator.fabric.TestFrames.B;
import static org.roce4j.emulator.fabric.TestFrames.C;
import static org.roce4j.emulator.fabric.TestFrames.frame;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.roce4j.emulator.fabric.TestFrames.Arrival;
import org.roce4j.emulator.fabric.TestFrames.Recorder;

class DeterministicOrderTest {

    @Test
    void framesDueAtTheSameTimeArriveInTransmitOrderAcrossSenders() {
        try (Fabric fabric = Fabric.deterministic()) {
            Recorder atC = new Recorder("C");
            FabricPort a = fabric.attach(A, new Recorder("A"));
            FabricPort b = fabric.attach(B, new Recorder("B"));
            fabric.attach(C, atC);
            for (int[] sender : new int[][] {{0, 1}, {0, 2}, {1, 3}, {0, 4}, {1, 5}}) {
                byte[] f = frame(C, sender[0] == 0 ? A : B, sender[1], 60);
                (sender[0] == 0 ? a : b).transmit(f, 0, f.length);
            }

            fabric.runUntilIdle();

            assertThat(atC.arrivals).extracting(arrival -> (int) arrival.bytes()[14]).containsExactly(1, 2, 3, 4, 5);
        }
    }

    @Test
    void aFrameWithAShorterDelayOvertakesAnEarlierOne() {
        try (Fabric fabric = Fabric.deterministic()) {
            Recorder atB = new Recorder("B");
            FabricPort a = fabric.attach(A, new Recorder("A"));
            fabric.attach(B, atB);
            byte[] slow = frame(B, A, 1, 60);
            byte[] fast = frame(B, A, 2, 60);
            fabric.linkDelay(Duration.ofNanos(5_000));
            a.transmit(slow, 0, slow.length);
            fabric.linkDelay(Duration.ofNanos(1_000));
            a.transmit(fast, 0, fast.length);

            fabric.runUntilIdle();

            assertThat(atB.arrivals).extracting(Arrival::nowNanos).containsExactly(1_000L, 5_000L);
            assertThat(atB.arrivals.getFirst().bytes()).isEqualTo(fast);
        }
    }

    @Test
    void theSameSeededScenarioDeliversTheSameFramesAtTheSameTimesEveryRun() {
        long seed = new SplittableRandom().nextLong();
        List<Arrival> first = pingPong(seed);
        List<Arrival> second = pingPong(seed);

        assertThat(first).as("seed %d", seed).hasSizeGreaterThan(100);
        assertThat(second).as("seed %d", seed).extracting(Arrival::toString)
                .containsExactlyElementsOf(first.stream().map(Arrival::toString).toList());
    }

    /**
     * Three nodes bounce frames of random sizes at each other with random link delays, each
     * reply sent from inside the receiver, until a hop budget runs out.
     */
    private static List<Arrival> pingPong(long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        List<Arrival> log = new ArrayList<>();
        try (Fabric fabric = Fabric.deterministic()) {
            org.roce4j.wire.MacAddress[] macs = {A, B, C};
            FabricPort[] ports = new FabricPort[3];
            int[] hopsLeft = {300};
            for (int i = 0; i < 3; i++) {
                Recorder recorder = new Recorder("node" + i, log);
                int self = i;
                ports[i] = fabric.attach(macs[i], (frame, off, len, now) -> {
                    recorder.onFrame(frame, off, len, now);
                    if (hopsLeft[0]-- > 0) {
                        fabric.linkDelay(Duration.ofNanos(random.nextLong(1, 5_000)));
                        int to = random.nextInt(3);
                        byte[] reply = frame(macs[to], macs[self], random.nextInt(256), random.nextInt(14, 1500));
                        ports[self].transmit(reply, 0, reply.length);
                    }
                });
            }
            for (int i = 0; i < 3; i++) {
                byte[] f = frame(macs[(i + 1) % 3], macs[i], i, 100);
                ports[i].transmit(f, 0, f.length);
            }
            fabric.runUntilIdle();
        }
        return log;
    }
}
