package org.roce4j.emulator.fabric;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.roce4j.emulator.fabric.TestFrames.A;
import static org.roce4j.emulator.fabric.TestFrames.B;
import static org.roce4j.emulator.fabric.TestFrames.frame;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.roce4j.emulator.fabric.TestFrames.Recorder;

class RunUntilIdleTest {

    private final Fabric fabric = Fabric.deterministic();
    private final Recorder atB = new Recorder("B");
    private final FabricPort a = fabric.attach(A, new Recorder("A"));

    {
        fabric.attach(B, atB);
    }

    @Test
    void anAgentThatAlwaysReportsWorkHitsTheStepLimitInsteadOfHanging() {
        fabric.runUntilIdleLimits(1_000, Duration.ofSeconds(60));
        fabric.addAgent(now -> 1);

        assertThatThrownBy(fabric::runUntilIdle)
                .isInstanceOf(RunLimitExceededException.class)
                .hasMessageContaining("1000 steps")
                .satisfies(e -> {
                    RunLimitExceededException limit = (RunLimitExceededException) e;
                    assertThat(limit.steps()).isEqualTo(1_000);
                    assertThat(limit.virtualNanosElapsed()).isZero();
                });
    }

    @Test
    void anAgentRetryingForeverOnATimerHitsTheVirtualTimeLimit() {
        fabric.runUntilIdleLimits(1_000_000, Duration.ofSeconds(1));
        VirtualTimeTest.TimerAgent retrier = new VirtualTimeTest.TimerAgent(100_000_000, 100_000_000);
        fabric.addAgent(retrier);

        assertThatThrownBy(fabric::runUntilIdle)
                .isInstanceOf(RunLimitExceededException.class)
                .hasMessageContaining("PT1S of virtual time")
                .extracting(e -> ((RunLimitExceededException) e).virtualNanosElapsed())
                .isEqualTo(1_100_000_000L);
        assertThat(retrier.firedAt).hasSize(11);
    }

    @Test
    void afterTheLimitTheFabricCanStillBeStepped() {
        fabric.runUntilIdleLimits(10, Duration.ofSeconds(60));
        int[] workLeft = {15};
        fabric.addAgent(now -> workLeft[0] > 0 ? workLeft[0]-- : 0);

        assertThatThrownBy(fabric::runUntilIdle).isInstanceOf(RunLimitExceededException.class);
        assertThat(fabric.runUntilIdle()).isEqualTo(5);
    }

    @Test
    void runUntilIdleFromInsideAnAgentDoesNothingAndDeliversNothing() {
        List<Integer> innerResults = new ArrayList<>();
        byte[] f = frame(B, A, 1, 60);
        fabric.addAgent(new Agent() {
            boolean sent;

            @Override
            public int doWork(long nowNanos) {
                if (sent) {
                    return 0;
                }
                sent = true;
                a.transmit(f, 0, f.length);
                innerResults.add(fabric.runUntilIdle());
                innerResults.add(fabric.step() ? 1 : 0);
                innerResults.add(atB.arrivals.size());
                return 1;
            }
        });

        fabric.runUntilIdle();

        assertThat(innerResults).containsExactly(0, 0, 0);
        assertThat(atB.arrivals).hasSize(1);
    }

    @Test
    void runUntilIdleFromInsideAReceiverDoesNothing() {
        List<Integer> innerResults = new ArrayList<>();
        FabricPort c = fabric.attach(TestFrames.C, (frame, off, len, now) -> {
            byte[] onward = frame(B, TestFrames.C, 2, 60);
            fabric.clock(); // receivers may read time and transmit
            fabric.locked(() -> innerResults.add(fabric.runUntilIdle()));
            fabric.attach(org.roce4j.wire.MacAddress.parse("02:00:00:00:00:0e"), new Recorder("E"));
            a.transmit(onward, 0, onward.length);
        });
        byte[] f = frame(c.mac(), A, 1, 60);
        a.transmit(f, 0, f.length);

        assertThat(fabric.runUntilIdle()).isEqualTo(2);
        assertThat(innerResults).containsExactly(0);
        assertThat(atB.arrivals).hasSize(1);
    }

    @Test
    void stepReturnsFalseWhenNothingAtAllIsPending() {
        assertThat(fabric.step()).isFalse();
        assertThat(fabric.runUntilIdle()).isZero();
    }
}
