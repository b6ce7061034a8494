package org.roce4j.emulator.fabric;

import static org.assertj.core.api.Assertions.assertThat;
import static org.roce4j.emulator.fabric.TestFrames.A;
import static org.roce4j.emulator.fabric.TestFrames.B;
import static org.roce4j.emulator.fabric.TestFrames.frame;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.roce4j.emulator.fabric.TestFrames.Recorder;

class VirtualTimeTest {

    private final Fabric fabric = Fabric.deterministic();
    private final List<String> events = new ArrayList<>();
    private final Recorder atB = new Recorder("B");
    private final FabricPort a = fabric.attach(A, new Recorder("A"));

    {
        fabric.attach(B, (frame, off, len, now) -> {
            events.add("frame@" + now);
            atB.onFrame(frame, off, len, now);
        });
    }

    @Test
    void aFrameArrivesOneDefaultLinkDelayOfVirtualTimeAfterItWasSent() {
        send();

        assertThat(fabric.clock().nanoTime()).isZero();
        fabric.runUntilIdle();

        assertThat(atB.arrivals).singleElement().extracting(TestFrames.Arrival::nowNanos).isEqualTo(1_000L);
        assertThat(fabric.clock().nanoTime()).isEqualTo(1_000L);
    }

    @Test
    void theLinkDelayIsConfigurable() {
        fabric.linkDelay(Duration.ofMillis(3));
        send();

        fabric.runUntilIdle();

        assertThat(atB.arrivals.getFirst().nowNanos()).isEqualTo(3_000_000L);
    }

    @Test
    void eachStepIsOneUnitAndTimeMovesOnlyToTheNextDelivery() {
        send();

        assertThat(fabric.step()).isTrue(); // nothing runnable at 0: time moves to 1000, frame delivered
        assertThat(atB.arrivals).hasSize(1);
        assertThat(fabric.clock().nanoTime()).isEqualTo(1_000L);
        assertThat(fabric.step()).isFalse();
    }

    @Test
    void virtualTimeStandsStillWhileAnAgentStillHasWork() {
        send();
        fabric.addAgent(new Agent() {
            int workLeft = 3;

            @Override
            public int doWork(long nowNanos) {
                if (workLeft == 0) {
                    return 0;
                }
                workLeft--;
                events.add("work@" + nowNanos);
                return 1;
            }
        });

        fabric.runUntilIdle();

        assertThat(events).containsExactly("work@0", "work@0", "work@0", "frame@1000");
    }

    @Test
    void aTimerFiresAtExactlyItsDeadlineInVirtualTime() {
        long deadline = Duration.ofMillis(500).toNanos() + 7;
        TimerAgent timer = new TimerAgent(deadline, 0);
        fabric.addAgent(timer);

        int steps = fabric.runUntilIdle();

        assertThat(timer.firedAt).containsExactly(deadline);
        assertThat(fabric.clock().nanoTime()).isEqualTo(deadline);
        assertThat(steps).isEqualTo(1);
    }

    @Test
    void framesAndTimersInterleaveByTime() {
        fabric.addAgent(new TimerAgent(1_500, 0) {
            @Override
            public int doWork(long nowNanos) {
                int fired = super.doWork(nowNanos);
                if (fired > 0) {
                    events.add("timer@" + nowNanos);
                }
                return fired;
            }
        });
        send();

        fabric.runUntilIdle();

        assertThat(events).containsExactly("frame@1000", "timer@1500");
    }

    @Test
    void runForEndsAtItsDurationEvenWithATimerThatRearmsForever() {
        TimerAgent heartbeat = new TimerAgent(1_000_000, 1_000_000);
        fabric.addAgent(heartbeat);

        fabric.runFor(Duration.ofMillis(10).plusNanos(500));

        assertThat(heartbeat.firedAt).hasSize(10).startsWith(1_000_000L).endsWith(10_000_000L);
        assertThat(fabric.clock().nanoTime()).isEqualTo(10_000_500L);
    }

    @Test
    void aStaleDeadlineInThePastDoesNotKeepTheFabricBusy() {
        fabric.addAgent(new Agent() {
            @Override
            public int doWork(long nowNanos) {
                return 0;
            }

            @Override
            public long nextDeadlineNanos() {
                return 0; // never cleared
            }
        });

        assertThat(fabric.runUntilIdle()).isZero();
    }

    private void send() {
        byte[] f = frame(B, A, 1, 60);
        a.transmit(f, 0, f.length);
    }

    /** Fires when its deadline comes; rearms {@code period} later if the period is positive. */
    static class TimerAgent implements Agent {
        final List<Long> firedAt = new ArrayList<>();
        private long deadline;
        private final long period;

        TimerAgent(long deadline, long period) {
            this.deadline = deadline;
            this.period = period;
        }

        @Override
        public int doWork(long nowNanos) {
            if (nowNanos < deadline) {
                return 0;
            }
            firedAt.add(nowNanos);
            deadline = period > 0 ? deadline + period : Long.MAX_VALUE;
            return 1;
        }

        @Override
        public long nextDeadlineNanos() {
            return deadline;
        }
    }
}
