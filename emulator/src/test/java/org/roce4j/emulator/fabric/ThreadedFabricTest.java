package org.roce4j.emulator.fabric;

import static org.assertj.core.api.Assertions.assertThat;
import static org.roce4j.emulator.fabric.TestFrames.A;
import static org.roce4j.emulator.fabric.TestFrames.B;
import static org.roce4j.emulator.fabric.TestFrames.frame;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class ThreadedFabricTest {

    private static final int ROUND_TRIPS = 1_000;

    @ParameterizedTest
    @EnumSource(IdleStrategy.class)
    void twoPortsPingPongThroughTheEventLoopAndCloseStopsIt(IdleStrategy idleStrategy) throws InterruptedException {
        Fabric fabric = Fabric.threaded(idleStrategy);
        CountDownLatch done = new CountDownLatch(1);
        AtomicInteger pongs = new AtomicInteger();
        AtomicInteger wrongThread = new AtomicInteger();
        Thread loop = fabric.eventLoopThread();
        FabricPort[] ports = new FabricPort[2];
        byte[] ping = frame(B, A, 1, 100);
        byte[] pong = frame(A, B, 2, 100);
        ports[0] = fabric.attach(A, (f, off, len, now) -> {
            if (Thread.currentThread() != loop || f[off + 14] != 2) {
                wrongThread.incrementAndGet();
            }
            if (pongs.incrementAndGet() == ROUND_TRIPS) {
                done.countDown();
            } else {
                ports[0].transmit(ping, 0, ping.length);
            }
        });
        ports[1] = fabric.attach(B, (f, off, len, now) -> ports[1].transmit(pong, 0, pong.length));

        ports[0].transmit(ping, 0, ping.length); // from the test thread: wakes the loop

        assertThat(done.await(60, TimeUnit.SECONDS)).as("%d pongs arrived", pongs.get()).isTrue();
        fabric.close();
        assertThat(loop.isAlive()).isFalse();
        assertThat(loop.isDaemon()).isTrue();
        assertThat(wrongThread.get()).isZero();
        assertThat(fabric.counters().framesDelivered()).isEqualTo(2L * ROUND_TRIPS);
        assertThat(fabric.step()).isFalse();
        assertThat(fabric.runUntilIdle()).isZero();
    }

    @Test
    void runNowWakesTheLoopOnlyForWorkItWouldNotLookAtInTime() throws InterruptedException {
        try (Fabric fabric = Fabric.threaded()) {
            AtomicLong deadline = new AtomicLong(Long.MAX_VALUE);
            CountDownLatch timerFired = new CountDownLatch(1);
            fabric.addAgent(new Agent() {
                @Override
                public int doWork(long nowNanos) {
                    if (nowNanos < deadline.get()) {
                        return 0;
                    }
                    deadline.set(Long.MAX_VALUE);
                    timerFired.countDown();
                    return 1;
                }

                @Override
                public long nextDeadlineNanos() {
                    return deadline.get();
                }
            });
            Thread.sleep(50); // the loop has run its cycle and waits for no deadline
            long before = fabric.loopWakeUps();

            for (int i = 0; i < 100; i++) {
                fabric.runNow(); // a received datagram's cycle that leaves nothing for later
            }
            assertThat(fabric.loopWakeUps()).as("wake-ups for cycles that left nothing").isEqualTo(before);

            fabric.locked(() -> deadline.set(fabric.clock().nanoTime() + TimeUnit.MILLISECONDS.toNanos(20)));
            fabric.runNow(); // its cycle leaves a timer the loop does not know of
            assertThat(fabric.loopWakeUps()).isEqualTo(before + 1);
            assertThat(timerFired.await(5, TimeUnit.SECONDS)).as("the timer fired on the loop").isTrue();
        }
    }

    @Test
    void anAgentTimerFiresOnTheSystemClockAndWakeUpRunsAgents() throws InterruptedException {
        try (Fabric fabric = Fabric.threaded()) {
            assertThat(fabric.isDeterministic()).isFalse();
            CountDownLatch timerFired = new CountDownLatch(1);
            CountDownLatch workSeen = new CountDownLatch(1);
            AtomicLong deadline = new AtomicLong(fabric.clock().nanoTime() + TimeUnit.MILLISECONDS.toNanos(20));
            AtomicInteger queuedWork = new AtomicInteger();
            fabric.addAgent(new Agent() {
                @Override
                public int doWork(long nowNanos) {
                    int work = 0;
                    if (nowNanos >= deadline.get()) {
                        deadline.set(Long.MAX_VALUE);
                        timerFired.countDown();
                        work++;
                    }
                    if (queuedWork.getAndSet(0) > 0) {
                        workSeen.countDown();
                        work++;
                    }
                    return work;
                }

                @Override
                public long nextDeadlineNanos() {
                    return deadline.get();
                }
            });

            assertThat(timerFired.await(60, TimeUnit.SECONDS)).isTrue();
            fabric.locked(() -> queuedWork.incrementAndGet());
            fabric.wakeUp();
            assertThat(workSeen.await(60, TimeUnit.SECONDS)).isTrue();
        }
    }

    @Test
    void framesTransmittedFromApplicationThreadsAllArrive() throws InterruptedException {
        int perThread = 5_000;
        try (Fabric fabric = Fabric.threaded()) {
            CountDownLatch all = new CountDownLatch(2 * perThread);
            FabricPort a = fabric.attach(A, (f, off, len, now) -> all.countDown());
            FabricPort b = fabric.attach(B, (f, off, len, now) -> all.countDown());
            Thread toB = Thread.ofPlatform().start(() -> send(a, frame(B, A, 1, 64), perThread));
            Thread toA = Thread.ofPlatform().start(() -> send(b, frame(A, B, 2, 64), perThread));
            toB.join();
            toA.join();

            assertThat(all.await(60, TimeUnit.SECONDS)).as("%d frames missing", all.getCount()).isTrue();
            assertThat(fabric.counters().framesTransmitted()).isEqualTo(2L * perThread);
        }
    }

    @ParameterizedTest
    @EnumSource(IdleStrategy.class)
    void anIdleLoopParksAfterWhateverSpinItsStrategyAllows(IdleStrategy idleStrategy) throws InterruptedException {
        try (Fabric fabric = Fabric.threaded(idleStrategy)) {
            CountDownLatch delivered = new CountDownLatch(1);
            FabricPort a = fabric.attach(A, (f, off, len, now) -> { });
            fabric.attach(B, (f, off, len, now) -> delivered.countDown());
            byte[] toB = frame(B, A, 1, 64);
            a.transmit(toB, 0, toB.length);
            assertThat(delivered.await(60, TimeUnit.SECONDS)).isTrue();

            Thread loop = fabric.eventLoopThread();
            long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (loop.getState() != Thread.State.TIMED_WAITING && System.nanoTime() < end) {
                Thread.sleep(1);
            }
            assertThat(loop.getState()).as("an idle loop must not spin on").isEqualTo(Thread.State.TIMED_WAITING);
        }
    }

    private static void send(FabricPort port, byte[] frame, int count) {
        for (int i = 0; i < count; i++) {
            port.transmit(frame, 0, frame.length);
        }
    }
}
