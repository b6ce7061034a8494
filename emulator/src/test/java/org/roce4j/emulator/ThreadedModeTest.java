package org.roce4j.emulator;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.roce4j.emulator.fabric.Fabric;
import org.roce4j.emulator.verbs.EmulatedCq;
import org.roce4j.verbs.CompChannel;
import org.roce4j.verbs.Cq;
import org.roce4j.verbs.Mtu;
import org.roce4j.verbs.Qp;
import org.roce4j.verbs.QpCap;
import org.roce4j.verbs.QpInitAttr;
import org.roce4j.verbs.QpType;
import org.roce4j.verbs.RecvWr;
import org.roce4j.verbs.SendWr;
import org.roce4j.verbs.WcStatus;
import org.roce4j.verbs.WorkCompletion;

/** The same RNIC on a threaded fabric: the event loop does the work, API calls take the fabric lock (polls their CQ's). */
@Timeout(30)
class ThreadedModeTest {

    private static WorkCompletion pollOne(Cq cq) {
        WorkCompletion[] one = new WorkCompletion[1];
        while (cq.poll(one) == 0) {
            Thread.onSpinWait();
        }
        return one[0];
    }

    @Test
    @DisplayName("RC ping-pong of 2000 messages, each carrying its sequence number")
    void pingPong() {
        try (TwoNodes nodes = new TwoNodes(Fabric.threaded())) {
            Qp[] pair = nodes.connectedPair(QpType.RC, Mtu.MTU_1024);
            var a = nodes.a;
            var b = nodes.b;
            for (int i = 0; i < 2000; i++) {
                pair[1].postRecv(RecvWr.of(i, b.mr, 0, 64));
                a.memory.set(ValueLayout.JAVA_INT, 0, i);
                pair[0].postSend(SendWr.send(i, a.mr, 0, 4).signaled(false));
                WorkCompletion received = pollOne(b.cq);
                assertThat(received.status()).isEqualTo(WcStatus.SUCCESS);
                assertThat(b.memory.get(ValueLayout.JAVA_INT, 0)).isEqualTo(i);
            }
            pair[0].postSend(SendWr.rdmaRead(7, a.mr, 64, 4, b.mr.address(), b.mr.rkey()));
            assertThat(pollOne(a.cq).status()).isEqualTo(WcStatus.SUCCESS);
            assertThat(a.memory.get(ValueLayout.JAVA_INT, 64)).isEqualTo(1999);
        }
    }

    @Test
    @DisplayName("a poll takes its completions while another thread holds the fabric lock: pollers have the CQ's own lock")
    void pollDoesNotWaitForTheFabricLock() throws Exception {
        try (TwoNodes nodes = new TwoNodes(Fabric.threaded())) {
            Qp[] pair = nodes.connectedPair(QpType.RC, Mtu.MTU_1024);
            pair[0].postSend(SendWr.rdmaWrite(1, nodes.a.mr, 0, 8, nodes.b.mr.address(), nodes.b.mr.rkey()));
            while (((EmulatedCq) nodes.a.cq).size() == 0) {
                Thread.onSpinWait();
            }
            try (FabricLockHeld _ = FabricLockHeld.by(nodes.fabric)) {
                FutureTask<List<WorkCompletion>> poll = new FutureTask<>(() -> nodes.a.cq.poll(4));
                Thread.ofPlatform().start(poll);
                assertThat(poll.get(10, TimeUnit.SECONDS)).extracting(WorkCompletion::status)
                        .containsExactly(WcStatus.SUCCESS);
            }
        }
    }

    @Test
    @DisplayName("IBTA 9.7.6.1.3 on the real clock: a lost WRITE is resent after the ACK timeout "
            + "(timeout 14 ≈ 67 ms) by the same timer code the deterministic fabric runs on virtual time")
    void ackTimeoutOnTheRealClock() {
        try (TwoNodes nodes = new TwoNodes(Fabric.threaded())) {
            // 67 ms: long enough that a loaded machine does not delay the ACK of the resent WRITE
            // past it (a second timeout would be legitimate, but not what this test is about).
            Qp[] pair = nodes.rcPair(Mtu.MTU_1024, rtr -> { }, rts -> rts.timeout(14).retryCnt(7),
                    rtr -> { }, rts -> { });
            FaultScript script = new FaultScript();
            nodes.fabric.filter(script.dropNth(1, f -> f.fromA()));
            nodes.a.memory.set(ValueLayout.JAVA_LONG, 0, 0x5EED_F00DL);
            long start = System.nanoTime();
            pair[0].postSend(SendWr.rdmaWrite(1, nodes.a.mr, 0, 8, nodes.b.mr.address(), nodes.b.mr.rkey()));

            assertThat(pollOne(nodes.a.cq).status()).isEqualTo(WcStatus.SUCCESS);

            long elapsed = System.nanoTime() - start;
            assertThat(elapsed).as("at least one ACK timeout of 4.096 µs × 2^14").isGreaterThanOrEqualTo(4096L << 14);
            assertThat(nodes.b.memory.get(ValueLayout.JAVA_LONG, 0)).isEqualTo(0x5EED_F00DL);
            assertThat(nodes.a.context.queryPortCounters(1).get("local_ack_timeouts")).isGreaterThanOrEqualTo(1);
        }
    }

    @Test
    @DisplayName("getCqEvent waits for the event loop's completion, and times out when none comes")
    void completionEventWakesWaiter() {
        try (TwoNodes nodes = new TwoNodes(Fabric.threaded())) {
            var a = nodes.a;
            var b = nodes.b;
            CompChannel channel = b.context.createCompChannel();
            Cq cq = b.context.createCq(16, channel, 0);
            Qp qb = b.pd.createQp(QpInitAttr.of(QpType.RC, cq, QpCap.of(4, 4)));
            Qp qa = a.createQp(QpType.RC, 4);
            TwoNodes.connect(qa, qb.qpNum(), b.gid(), 1, 2, Mtu.MTU_1024);
            TwoNodes.connect(qb, qa.qpNum(), a.gid(), 2, 1, Mtu.MTU_1024);
            qb.postRecv(RecvWr.of(1, b.mr, 0, 64));
            cq.reqNotify(false);
            assertThat(channel.getCqEvent(Duration.ofMillis(20))).isEmpty();
            Thread sender = Thread.ofVirtual().start(() -> {
                try {
                    Thread.sleep(20);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                qa.postSend(SendWr.send(1, a.mr, 0, 8));
            });
            Optional<Cq> event = channel.getCqEvent(Duration.ofSeconds(10));
            assertThat(event).contains(cq);
            channel.ackCqEvents(cq, 1);
            assertThat(cq.poll(4)).extracting(WorkCompletion::status).containsExactly(WcStatus.SUCCESS);
            sender.join();
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        }
    }
}
