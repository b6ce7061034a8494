package org.roce4j.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.roce4j.verbs.AsyncEvent;
import org.roce4j.verbs.AsyncEventType;
import org.roce4j.verbs.Errno;
import org.roce4j.verbs.Mr;
import org.roce4j.verbs.Mtu;
import org.roce4j.verbs.Pd;
import org.roce4j.verbs.QpCap;
import org.roce4j.verbs.QpInitAttr;
import org.roce4j.verbs.QpType;
import org.roce4j.verbs.RecvWr;
import org.roce4j.verbs.SendWr;
import org.roce4j.verbs.Srq;
import org.roce4j.verbs.SrqAttr;
import org.roce4j.verbs.SrqAttrMask;
import org.roce4j.verbs.SrqInitAttr;
import org.roce4j.verbs.WcOpcode;
import org.roce4j.verbs.WorkCompletion;

/** Shared receive queues (IBTA 10.2.9): one FIFO of receive WQEs consumed by every QP attached to it, and the limit event. */
@ExtendWith(Backend.Resolver.class)
class SrqTest {
    private final Backend backend;

    SrqTest(Backend backend) {
        this.backend = backend;
    }

    @Test
    @DisplayName("IBTA 10.2.9: two QPs consume one SRQ's WQEs in posting order; qp_num tells which QP received")
    void sharedAcrossQps() throws Exception {
        try (Endpoint a = Endpoint.first(backend); Endpoint b = Endpoint.second(backend)) {
            Srq srq = b.track(b.pd.createSrq(new SrqInitAttr(16, 1, 0)));
            assertThat(srq.pd()).isSameAs(b.pd);
            QpPair one = QpPair.connect(a, b, Mtu.MTU_1024, QpPair.remoteAccess(), e -> attr(e, b, srq));
            QpPair two = QpPair.connect(a, b, Mtu.MTU_1024, QpPair.remoteAccess(), e -> attr(e, b, srq));
            Mr dst = b.register(4 * 64);
            Bytes.canary(dst.segment());
            for (int i = 0; i < 4; i++) {
                srq.postRecv(RecvWr.of(10 + i, dst, 64L * i, 64));
            }
            Mr src = a.register(4 * 64);
            for (int i = 0; i < 4; i++) {
                Bytes.write(src.segment(), 64L * i, Bytes.pattern(100 + i, 64));
            }
            QpPair[] order = {one, two, one, two};
            for (int i = 0; i < 4; i++) {
                order[i].qpA.postSend(SendWr.send(20 + i, src, 64L * i, 48));
                Expect.success(Completions.awaitOne(a.cq), 20 + i, WcOpcode.SEND);
                WorkCompletion wc = Completions.awaitOne(b.cq);
                Expect.success(wc, 10 + i, WcOpcode.RECV);
                assertThat(wc.qpNum()).as("receive %d came through", i).isEqualTo(order[i].qpB.qpNum());
                assertThat(wc.byteLen()).isEqualTo(48);
                Bytes.assertAt(dst.segment(), 64L * i, Bytes.pattern(100 + i, 48), "SRQ WQE " + i);
                Bytes.assertUntouched(dst.segment(), 64L * i + 48, 16, "rest of SRQ WQE " + i);
            }
        }
    }

    @Test
    @DisplayName("Linux ib_create_qp: a QP may use an SRQ of another PD; the receive buffer is checked against the "
            + "SRQ's PD, whose WQE it is (rdmavt init_sge), and a SEND lands in it")
    void srqOfAnotherPd() throws Exception {
        try (Endpoint a = Endpoint.first(backend); Endpoint b = Endpoint.second(backend)) {
            Pd srqPd = b.track(b.context.allocPd());
            Srq srq = b.track(srqPd.createSrq(new SrqInitAttr(4, 1, 0)));
            Expect.succeeds("create_qp of PD 1 on an SRQ of PD 2", () -> b.pd.createQp(
                    QpInitAttr.of(QpType.RC, b.cq, QpCap.of(4, 0)).withSrq(srq)).close());
            QpPair pair = QpPair.connect(a, b, Mtu.MTU_1024, QpPair.remoteAccess(), e -> attr(e, b, srq));
            Mr dst = b.track(srqPd.regMr(b.allocate(64), Endpoint.ALL_ACCESS));
            Bytes.canary(dst.segment());
            srq.postRecv(RecvWr.of(10, dst, 0, 64));
            Mr src = a.register(64);
            Bytes.write(src.segment(), 0, Bytes.pattern(7, 48));
            pair.qpA.postSend(SendWr.send(20, src, 0, 48));
            List<WorkCompletion> recv = Completions.await(b.cq, 1, "receive through the SRQ of another PD");
            Expect.success(recv.get(0), 10, WcOpcode.RECV);
            Expect.success(Completions.awaitOne(a.cq), 20, WcOpcode.SEND);
            Bytes.assertAt(dst.segment(), 0, Bytes.pattern(7, 48), "the SRQ's buffer");
        }
    }

    @Test
    @DisplayName("IBTA 10.2.9.2 / rxe get_srq_wqe: SRQ_LIMIT_REACHED fires once when fewer WQEs than the limit remain, then the limit is disarmed")
    void limitEvent() throws Exception {
        try (Endpoint a = Endpoint.first(backend); Endpoint b = Endpoint.second(backend)) {
            Srq srq = b.track(b.pd.createSrq(new SrqInitAttr(16, 1, 0)));
            QpPair pair = QpPair.connect(a, b, Mtu.MTU_1024, QpPair.remoteAccess(), e -> attr(e, b, srq));
            Mr dst = b.register(6 * 64);
            for (int i = 0; i < 6; i++) {
                srq.postRecv(RecvWr.of(i, dst, 64L * i, 64));
            }
            srq.modify(new SrqAttr(0, 0, 4), java.util.EnumSet.of(SrqAttrMask.LIMIT));
            assertThat(srq.query().srqLimit()).as("armed limit").isEqualTo(4);
            Mr src = a.register(64);

            sendOne(pair, src, a, b, 0);   // 6 → 5 WQEs
            sendOne(pair, src, a, b, 1);   // 5 → 4: not below the limit
            assertThat(b.context.pollAsyncEvent()).as("no event while 4 WQEs (= limit) remain").isEmpty();
            sendOne(pair, src, a, b, 2);   // 4 → 3: below the limit
            Optional<AsyncEvent> event = b.context.getAsyncEvent(Completions.PATIENCE);
            assertThat(event).as("SRQ_LIMIT_REACHED").isPresent();
            assertThat(event.get().type()).isEqualTo(AsyncEventType.SRQ_LIMIT_REACHED);
            assertThat(event.get().srq()).isSameAs(srq);
            assertThat(srq.query().srqLimit()).as("the limit is disarmed after the event").isZero();
            sendOne(pair, src, a, b, 3);   // 3 → 2: disarmed, no second event
            assertThat(b.context.getAsyncEvent(Duration.ofMillis(100))).as("only one event").isEmpty();
        }
    }

    @Test
    @DisplayName("ibv_modify_srq: arming a limit above max_wr is EINVAL")
    void limitAboveMaxWrIsEinval() throws Exception {
        try (Endpoint e = Endpoint.first(backend)) {
            Srq srq = e.track(e.pd.createSrq(new SrqInitAttr(8, 1, 0)));
            int maxWr = srq.query().maxWr();
            assertThat(maxWr).isGreaterThanOrEqualTo(8);
            Expect.errno(Errno.EINVAL, () -> srq.modify(new SrqAttr(0, 0, maxWr + 1), java.util.EnumSet.of(SrqAttrMask.LIMIT)));
            assertThat(srq.query().srqLimit()).isZero();
        }
    }

    @Test
    @DisplayName("ibv_create_srq: max_wr above the device's max_srq_wr or max_sge above max_srq_sge is EINVAL")
    void createBeyondLimits() throws Exception {
        try (Endpoint e = Endpoint.first(backend)) {
            var device = e.context.queryDevice();
            Expect.errno(Errno.EINVAL, () -> e.pd.createSrq(new SrqInitAttr(device.maxSrqWr() + 1, 1, 0)));
            Expect.errno(Errno.EINVAL, () -> e.pd.createSrq(new SrqInitAttr(4, device.maxSrqSge() + 1, 0)));
        }
    }

    @Test
    @DisplayName("ibv_post_srq_recv: ENOMEM when full, EINVAL for too many SGEs, bad_wr index in a list")
    void postLimits() throws Exception {
        try (Endpoint e = Endpoint.first(backend)) {
            Srq srq = e.track(e.pd.createSrq(new SrqInitAttr(4, 1, 0)));
            SrqAttr attr = srq.query();
            Mr mr = e.register(64);
            RecvWr twoSges = new RecvWr().wrId(99);
            for (int i = 0; i <= attr.maxSge(); i++) {
                twoSges.sge(mr, i, 1);
            }
            Expect.badWr(Errno.EINVAL, 0, () -> srq.postRecv(twoSges));
            for (int i = 0; i < attr.maxWr() - 1; i++) {
                srq.postRecv(RecvWr.of(i, mr, 0, 64));
            }
            Expect.badWr(Errno.ENOMEM, 1, () -> srq.postRecv(List.of(RecvWr.of(50, mr, 0, 64), RecvWr.of(51, mr, 0, 64))));
        }
    }

    static QpInitAttr attr(Endpoint e, Endpoint b, Srq srq) {
        QpInitAttr plain = QpInitAttr.of(QpType.RC, e.cq, QpCap.of(16, 16));
        return e == b ? QpInitAttr.of(QpType.RC, e.cq, QpCap.of(16, 0)).withSrq(srq) : plain;
    }

    static void sendOne(QpPair pair, Mr src, Endpoint a, Endpoint b, long recvId) {
        pair.qpA.postSend(SendWr.send(1000 + recvId, src, 0, 8));
        Expect.success(Completions.awaitOne(a.cq), 1000 + recvId, WcOpcode.SEND);
        Expect.success(Completions.awaitOne(b.cq), recvId, WcOpcode.RECV);
    }
}
