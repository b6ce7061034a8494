package org.roce4j.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.roce4j.verbs.AsyncEvent;
import org.roce4j.verbs.AsyncEventType;
import org.roce4j.verbs.Cq;
import org.roce4j.verbs.Errno;
import org.roce4j.verbs.Mr;
import org.roce4j.verbs.Mtu;
import org.roce4j.verbs.QpCap;
import org.roce4j.verbs.QpInitAttr;
import org.roce4j.verbs.QpType;
import org.roce4j.verbs.RecvWr;
import org.roce4j.verbs.SendWr;
import org.roce4j.verbs.WcOpcode;

/**
 * CQ overrun (IBTA 10.10: "CQ overrun" is an affiliated asynchronous error; rxe_cq_post
 * raises IB_EVENT_CQ_ERR when the queue is full): more completions than a CQ holds, never polled,
 * raise AsyncEventType.CQ_ERR naming that CQ; the CQ then fails ibv_poll_cq (Cq.poll's contract).
 */
@ExtendWith(Backend.Resolver.class)
class CqOverflowTest {
    private final Backend backend;

    CqOverflowTest(Backend backend) {
        this.backend = backend;
    }

    @Test
    @DisplayName("IBTA 10.10 CQ overrun: send completions overrunning an unpolled CQ raise CQ_ERR for that CQ")
    void sendCqOverrun() throws Exception {
        try (Endpoint a = Endpoint.first(backend); Endpoint b = Endpoint.second(backend)) {
            Cq small = a.track(a.context.createCq(4));
            int capacity = small.capacity();
            int n = capacity + 2;
            QpPair pair = QpPair.connect(a, b, Mtu.MTU_1024, QpPair.remoteAccess(), e -> e == a
                    ? QpInitAttr.of(QpType.UD, small, QpCap.of(n, n)).withCqs(small, a.cq)
                    : QpInitAttr.of(QpType.UD, b.cq, QpCap.of(n, n)));
            Mr src = a.register(64);
            Mr dst = b.register(64L * n + 40L * n);
            for (int i = 0; i < n; i++) {
                pair.qpB.postRecv(RecvWr.of(i, dst, 104L * i, 104));
            }
            List<SendWr> wrs = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                wrs.add(SendWr.send(100 + i, src, 0, 8).ud(pair.ahToB, pair.qpB.qpNum(), QpPair.QKEY));
            }
            pair.qpA.postSend(wrs);
            // Drive the fabric through B's CQ only: A's small CQ is never polled. Once the CQ overruns,
            // a backend may move A's QP to ERR (hardware does), so not every send need arrive; at
            // least capacity + 1 must have, or the CQ never overran.
            assertThat(Completions.drain(b.cq)).hasSizeGreaterThan(capacity)
                    .allSatisfy(wc -> assertThat(wc.opcode()).isEqualTo(WcOpcode.RECV));
            assertCqError(a, small);
        }
    }

    @Test
    @DisplayName("IBTA 10.10 CQ overrun: receive completions overrunning an unpolled CQ raise CQ_ERR for that CQ")
    void recvCqOverrun() throws Exception {
        try (Endpoint a = Endpoint.first(backend); Endpoint b = Endpoint.second(backend)) {
            assertCqError(b, overrunReceiveCq(a, b));
        }
    }

    @Test
    @DisplayName("Cq.poll contract (ibv_poll_cq < 0 on mlx4/mlx5): polling an overrun CQ is EINVAL")
    void pollAfterOverrunIsEinval() throws Exception {
        try (Endpoint a = Endpoint.first(backend); Endpoint b = Endpoint.second(backend)) {
            Cq small = overrunReceiveCq(a, b);
            assertCqError(b, small);
            Expect.errno("poll after the overrun", Errno.EINVAL, () -> small.poll(new org.roce4j.verbs.WorkCompletion[1]));
        }
    }

    /**
     * A UD pair whose B receives into a small CQ that nobody polls, and capacity + 2 datagrams sent
     * to it, every send completed SUCCESS on A: {@return the overrun CQ}
     */
    private static Cq overrunReceiveCq(Endpoint a, Endpoint b) {
        Cq small = b.track(b.context.createCq(4));
        int n = small.capacity() + 2;
        QpPair pair = QpPair.connect(a, b, Mtu.MTU_1024, QpPair.remoteAccess(), e -> e == b
                ? QpInitAttr.of(QpType.UD, b.cq, QpCap.of(n, n)).withCqs(b.cq, small)
                : QpInitAttr.of(QpType.UD, a.cq, QpCap.of(n, n)));
        Mr src = a.register(64);
        Mr dst = b.register(104L * n);
        for (int i = 0; i < n; i++) {
            pair.qpB.postRecv(RecvWr.of(i, dst, 104L * i, 104));
        }
        for (int i = 0; i < n; i++) {
            pair.qpA.postSend(SendWr.send(100 + i, src, 0, 8).ud(pair.ahToB, pair.qpB.qpNum(), QpPair.QKEY));
        }
        Completions.await(a.cq, n).forEach(wc -> assertThat(wc.isSuccess()).isTrue());
        return small;
    }

    private static void assertCqError(Endpoint endpoint, Cq cq) {
        Optional<AsyncEvent> event = endpoint.context.getAsyncEvent(Completions.PATIENCE);
        assertThat(event).as("an asynchronous event after the overrun").isPresent();
        assertThat(event.get().type()).isEqualTo(AsyncEventType.CQ_ERR);
        assertThat(event.get().cq()).as("the event names the overrun CQ").isSameAs(cq);
    }
}
