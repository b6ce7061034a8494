package org.roce4j.emulator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.foreign.ValueLayout;
import java.util.List;
import java.util.concurrent.FutureTask;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.roce4j.emulator.fabric.Fabric;
import org.roce4j.verbs.BadWorkRequestException;
import org.roce4j.verbs.Errno;
import org.roce4j.verbs.Mtu;
import org.roce4j.verbs.Qp;
import org.roce4j.verbs.QpAttr;
import org.roce4j.verbs.QpState;
import org.roce4j.verbs.QpType;
import org.roce4j.verbs.RecvWr;
import org.roce4j.verbs.SendWr;
import org.roce4j.verbs.WcOpcode;
import org.roce4j.verbs.WcStatus;
import org.roce4j.verbs.WorkCompletion;

/**
 * On a threaded fabric {@code ibv_post_recv} to a QP's own receive queue takes that queue's lock, not the fabric
 * lock, as rxe's provider writes its mmapped receive queue and tells the kernel nothing: a receive lands in the
 * message that takes it, a reposted slot is never overwritten before the RNIC has read it, and a receive posted
 * while the QP enters the error state is flushed, never left behind.
 */
@Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD) // a spinning poll fails, not hangs
class PostRecvWithoutFabricLockTest {

    @Test
    @DisplayName("a receive post returns while another thread holds the fabric lock, and the SEND it waits for lands in it")
    void postRecvDoesNotWaitForTheFabricLock() throws Exception {
        try (TwoNodes nodes = new TwoNodes(Fabric.threaded())) {
            Qp[] pair = nodes.connectedPair(QpType.RC, Mtu.MTU_1024);
            try (FabricLockHeld _ = FabricLockHeld.by(nodes.fabric)) {
                FutureTask<Void> post = new FutureTask<>(() -> {
                    pair[1].postRecv(RecvWr.of(7, nodes.b.mr, 0, 64));
                    return null;
                });
                Thread.ofPlatform().start(post);
                post.get(10, TimeUnit.SECONDS);
            }
            nodes.a.memory.set(ValueLayout.JAVA_LONG, 0, 0x5eedL);
            pair[0].postSend(SendWr.send(1, nodes.a.mr, 0, 8));

            WorkCompletion received = pollUntilOpcode(nodes.b, WcOpcode.RECV);
            assertThat(received.status()).isEqualTo(WcStatus.SUCCESS);
            assertThat(received.wrId()).isEqualTo(7);
            assertThat(nodes.b.memory.get(ValueLayout.JAVA_LONG, 0)).isEqualTo(0x5eedL);
        }
    }

    @Test
    @DisplayName("100,000 SENDs, 16 in flight, each receive reposted as its completion is polled (ib_send_bw): each lands in its own receive")
    void repostedReceivesTakeEachMessageInOrder() {
        try (TwoNodes nodes = new TwoNodes(Fabric.threaded())) {
            Qp[] pair = nodes.rcPair(Mtu.MTU_1024, rtr -> { }, rts -> { }, rtr -> { }, rts -> { });
            int receives = 32; // twice the SENDs in flight: no SEND waits for a receive (RNR)
            for (int i = 0; i < receives; i++) {
                pair[1].postRecv(RecvWr.of(i, nodes.b.mr, 8L * i, 8));
            }
            long sent = 0;
            long sendsCompleted = 0;
            long received = 0;
            WorkCompletion[] batch = new WorkCompletion[32];
            while (received < 100_000) {
                while (sent - sendsCompleted < 16) {
                    int slot = (int) (sent % 16);
                    nodes.a.memory.set(ValueLayout.JAVA_LONG, 8L * slot, sent);
                    pair[0].postSend(SendWr.send(sent, nodes.a.mr, 8L * slot, 8));
                    sent++;
                }
                sendsCompleted += countSendsAndCheck(nodes.a.cq.poll(batch), batch);
                int n = nodes.b.cq.poll(batch);
                for (int i = 0; i < n; i++) {
                    WorkCompletion wc = batch[i];
                    assertThat(wc.status()).isEqualTo(WcStatus.SUCCESS);
                    assertThat(wc.wrId()).as("message %d takes the receives in the order posted", received)
                            .isEqualTo(received % receives);
                    assertThat(nodes.b.memory.get(ValueLayout.JAVA_LONG, 8L * wc.wrId()))
                            .as("receive %d holds message %d", wc.wrId(), received).isEqualTo(received);
                    pair[1].postRecv(RecvWr.of(wc.wrId(), nodes.b.mr, 8L * wc.wrId(), 8)); // ENOMEM fails the test
                    received++;
                }
            }
        }
    }

    @Test
    @DisplayName("receives posted while the QP enters ERR: each completes once, WR_FLUSH_ERR, in the order posted")
    void receivesRacingTheErrorState() throws Exception {
        try (TwoNodes nodes = new TwoNodes(Fabric.threaded())) {
            Qp responder = nodes.rcPair(Mtu.MTU_1024, rtr -> { }, rts -> { }, rtr -> { }, rts -> { })[1];
            int total = 20_000;
            Semaphore permits = new Semaphore(200); // B's CQ is 256 deep: the poller gives the permits back
            AtomicReference<Throwable> failure = new AtomicReference<>();
            Thread poster = Thread.ofPlatform().start(() -> {
                try {
                    for (int i = 0; i < total; i++) {
                        permits.acquire();
                        RecvWr wr = RecvWr.of(i, nodes.b.mr, 0, 8);
                        while (!posted(responder, wr)) {
                            Thread.onSpinWait(); // full until the move to ERR flushes it
                        }
                    }
                } catch (Throwable e) {
                    failure.set(e);
                }
            });
            while (permits.availablePermits() > 200 - 64 && failure.get() == null) {
                Thread.onSpinWait(); // the queue (64) is full: the poster retries while the QP moves
            }
            responder.modify(new QpAttr().qpState(QpState.ERR));

            long next = 0;
            WorkCompletion[] batch = new WorkCompletion[32];
            while (next < total && failure.get() == null) {
                int n = nodes.b.cq.poll(batch); // a receive left unflushed would stop this short: the timeout fails it
                for (int i = 0; i < n; i++) {
                    assertThat(batch[i].status()).isEqualTo(WcStatus.WR_FLUSH_ERR);
                    assertThat(batch[i].wrId()).as("each receive once, in the order posted").isEqualTo(next++);
                    permits.release();
                }
            }
            poster.join();
            assertThat(failure.get()).isNull();
            assertThat(nodes.b.cq.poll(1)).isEmpty();
        }
    }

    @ParameterizedTest(name = "{0} fabric")
    @ValueSource(strings = {"threaded", "deterministic"})
    @DisplayName("a list of receives with a bad one posts those before it and no other (libibverbs' bad_wr)")
    void aListStopsAtItsBadReceive(String fabric) {
        try (TwoNodes nodes = new TwoNodes(fabric(fabric))) {
            Qp responder = nodes.rcPair(Mtu.MTU_1024, rtr -> { }, rts -> { }, rtr -> { }, rts -> { })[1];
            RecvWr tooManySges = new RecvWr().wrId(2);
            for (int i = 0; i < 5; i++) { // the QP takes 4
                tooManySges.sge(nodes.b.mr, 8L * i, 8);
            }
            List<RecvWr> list = List.of(RecvWr.of(1, nodes.b.mr, 0, 8), tooManySges, RecvWr.of(3, nodes.b.mr, 0, 8));

            assertThatThrownBy(() -> responder.postRecv(list)).isInstanceOfSatisfying(BadWorkRequestException.class,
                    e -> assertThat(e.index()).isEqualTo(1));
            responder.modify(new QpAttr().qpState(QpState.ERR));

            WorkCompletion flushed = pollUntilOpcode(nodes.b, WcOpcode.RECV);
            assertThat(flushed.wrId()).isEqualTo(1);
            assertThat(flushed.status()).isEqualTo(WcStatus.WR_FLUSH_ERR);
            assertThat(nodes.b.cq.poll(1)).as("only the receive before the bad one was posted").isEmpty();
        }
    }

    @ParameterizedTest(name = "{0} fabric")
    @ValueSource(strings = {"threaded", "deterministic"})
    @DisplayName("RESET empties the receive queue without completions (IBTA 10.3.1): a later move to ERR flushes nothing")
    void resetEmptiesTheReceiveQueue(String fabric) {
        try (TwoNodes nodes = new TwoNodes(fabric(fabric))) {
            Qp responder = nodes.rcPair(Mtu.MTU_1024, rtr -> { }, rts -> { }, rtr -> { }, rts -> { })[1];
            for (int i = 0; i < 3; i++) {
                responder.postRecv(RecvWr.of(i, nodes.b.mr, 0, 8));
            }
            responder.modify(new QpAttr().qpState(QpState.RESET));
            assertThat(nodes.b.cq.poll(1)).as("RESET completes nothing").isEmpty();
            TwoNodes.BRING_UP.init(responder);
            responder.postRecv(RecvWr.of(9, nodes.b.mr, 0, 8));
            responder.modify(new QpAttr().qpState(QpState.ERR));

            WorkCompletion flushed = pollUntilOpcode(nodes.b, WcOpcode.RECV);
            assertThat(flushed.wrId()).as("only the receive posted after RESET").isEqualTo(9);
            assertThat(nodes.b.cq.poll(1)).isEmpty();
        }
    }

    private static Fabric fabric(String kind) {
        return kind.equals("threaded") ? Fabric.threaded() : Fabric.deterministic();
    }

    private static long countSendsAndCheck(int n, WorkCompletion[] batch) {
        for (int i = 0; i < n; i++) {
            assertThat(batch[i].status()).isEqualTo(WcStatus.SUCCESS);
        }
        return n;
    }

    /** False when the receive queue is full (ENOMEM): the caller tries again. */
    private static boolean posted(Qp qp, RecvWr wr) {
        try {
            qp.postRecv(wr);
            return true;
        } catch (BadWorkRequestException e) {
            if (e.errno() != Errno.ENOMEM) {
                throw e;
            }
            return false;
        }
    }

    /** Polls {@code side}'s CQ until a completion of {@code opcode}, skipping the others. */
    private static WorkCompletion pollUntilOpcode(TwoNodes.Side side, WcOpcode opcode) {
        WorkCompletion[] one = new WorkCompletion[1];
        while (side.cq.poll(one) == 0 || one[0].opcode() != opcode) {
            Thread.onSpinWait();
        }
        return one[0];
    }
}
