package org.roce4j.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.stream.Stream;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;
import org.roce4j.verbs.AccessFlag;
import org.roce4j.verbs.Ah;
import org.roce4j.verbs.AhAttr;
import org.roce4j.verbs.Errno;
import org.roce4j.verbs.Mr;
import org.roce4j.verbs.Mtu;
import org.roce4j.verbs.Qp;
import org.roce4j.verbs.QpAttrMask;
import org.roce4j.verbs.QpBringUp;
import org.roce4j.verbs.QpCap;
import org.roce4j.verbs.QpInitAttr;
import org.roce4j.verbs.QpState;
import org.roce4j.verbs.QpType;
import org.roce4j.verbs.RecvWr;
import org.roce4j.verbs.SendWr;
import org.roce4j.verbs.WcOpcode;
import org.roce4j.verbs.WcStatus;
import org.roce4j.verbs.WorkCompletion;
import org.roce4j.verbs.WrOpcode;

/**
 * Work requests refused synchronously, as rdma-core providers refuse them (rxe: rxe_post_send /
 * validate_send_wr / rxe_post_recv): EINVAL or ENOMEM and a bad_wr index; nothing after the bad one posted.
 */
@ExtendWith(Backend.Resolver.class)
class PostValidationTest {
    private final Backend backend;

    PostValidationTest(Backend backend) {
        this.backend = backend;
    }

    @ParameterizedTest(name = "{0}")
    @DisplayName("rxe_post_send (IBTA 10.3.1: sends need RTS): a send on a QP in RESET, INIT or RTR is EINVAL")
    @EnumSource(QpType.class)
    void sendBeforeRtsIsEinval(QpType type) throws Exception {
        try (Endpoint e = Endpoint.first(backend)) {
            Qp qp = e.track(e.pd.createQp(QpInitAttr.of(type, e.cq, QpCap.of(4, 4))));
            Mr mr = e.register(64);
            Ah ah = e.track(e.pd.createAh(AhAttr.of(e.gid(), Endpoint.GID_INDEX, Endpoint.PORT)));
            SendWr wr = SendWr.send(1, mr, 0, 8);
            if (type == QpType.UD) {
                wr.ud(ah, qp.qpNum(), QpPair.QKEY);
            }
            Expect.badWr(Errno.EINVAL, 0, () -> qp.postSend(wr));
            QpBringUp bringUp = QpPair.bringUp(Mtu.MTU_1024, QpPair.remoteAccess());
            bringUp.init(qp);
            assertThat(qp.state()).isEqualTo(QpState.INIT);
            Expect.badWr(Errno.EINVAL, 0, () -> qp.postSend(wr));
            bringUp.readyToReceive(qp, new QpBringUp.Remote(qp.qpNum(), 0, e.gid()));
            assertThat(qp.state()).isEqualTo(QpState.RTR);
            Expect.badWr(Errno.EINVAL, 0, () -> qp.postSend(wr));
            assertThat(Completions.drain(e.cq)).as("a refused post completes nothing").isEmpty();
        }
    }

    @ParameterizedTest(name = "{0}")
    @DisplayName("rxe_post_recv: posting a receive on a QP in RESET is EINVAL; in INIT it is accepted")
    @EnumSource(QpType.class)
    void recvInResetIsEinval(QpType type) throws Exception {
        try (Endpoint e = Endpoint.first(backend)) {
            Qp qp = e.track(e.pd.createQp(QpInitAttr.of(type, e.cq, QpCap.of(4, 4))));
            Mr mr = e.register(64);
            Expect.badWr(Errno.EINVAL, 0, () -> qp.postRecv(RecvWr.of(1, mr, 0, 64)));
            QpPair.bringUp(Mtu.MTU_1024, QpPair.remoteAccess()).init(qp);
            qp.postRecv(RecvWr.of(2, mr, 0, 64));
        }
    }

    static Stream<Arguments> disallowedOpcodes() {
        List<Arguments> all = new ArrayList<>();
        for (QpType type : QpType.values()) {
            for (WrOpcode opcode : WrOpcode.values()) {
                // BIND_MW is refused at post where the QP type lacks it: bindMwOnUdIsEinval
                if (!opcode.isAllowedOn(type) && opcode != WrOpcode.BIND_MW) {
                    all.add(Arguments.of(type, opcode));
                }
            }
        }
        return all.stream();
    }

    @ParameterizedTest(name = "{0} {1}")
    @DisplayName("libibverbs and its providers: an opcode the QP type does not allow (IBTA table 38) is accepted at "
            + "post; the device completes it LOC_QP_OP_ERR, flushes what follows and moves the QP to ERR (rxe_req.c next_opcode)")
    @MethodSource("disallowedOpcodes")
    void opcodeNotAllowedOnQpTypeIsAcceptedAtPost(QpType type, WrOpcode opcode) throws Exception {
        try (Endpoint a = Endpoint.first(backend); Endpoint b = Endpoint.second(backend)) {
            QpPair pair = QpPair.connect(a, b, type, Mtu.MTU_1024);
            Mr mr = a.register(64);
            SendWr wr = new SendWr().wrId(77).opcode(opcode).sge(mr, 0, 8).remote(mr.address(), mr.rkey())
                    .signaled(true);
            SendWr next = new SendWr().wrId(78).opcode(WrOpcode.SEND).sge(mr, 0, 8).signaled(true);
            if (type == QpType.UD) {
                wr.ud(pair.ahToB, pair.qpB.qpNum(), QpPair.QKEY);
                next.ud(pair.ahToB, pair.qpB.qpNum(), QpPair.QKEY);
            }
            Expect.succeeds("post_send of " + opcode + " on " + type, () -> pair.qpA.postSend(List.of(wr, next)));
            List<WorkCompletion> wcs = Completions.await(a.cq, 2, "completions of the bad WR and the next");
            Expect.status(wcs.get(0), 77, WcStatus.LOC_QP_OP_ERR);
            Expect.status(wcs.get(1), 78, WcStatus.WR_FLUSH_ERR);
            Expect.outcome("state of the QP", QpState.ERR, pair.qpA.state());
        }
    }

    @org.junit.jupiter.api.Test
    @DisplayName("rdma-core rxe validate_send_wr: a BIND_MW on a UD QP is EINVAL at post (RC and UC only), unlike "
            + "other opcodes a QP type lacks")
    void bindMwOnUdIsEinval() throws Exception {
        try (Endpoint a = Endpoint.first(backend); Endpoint b = Endpoint.second(backend)) {
            org.junit.jupiter.api.Assumptions.assumeTrue(a.context.queryDevice().deviceCapFlags()
                    .contains(org.roce4j.verbs.DeviceCapFlag.MEM_WINDOW_TYPE_2B), "no MEM_WINDOW_TYPE_2B");
            QpPair pair = QpPair.connect(a, b, QpType.UD, Mtu.MTU_1024);
            Mr mr = a.register(64, java.util.EnumSet.of(org.roce4j.verbs.AccessFlag.LOCAL_WRITE,
                    org.roce4j.verbs.AccessFlag.MW_BIND));
            org.roce4j.verbs.Mw mw = a.track(a.pd.allocMw(org.roce4j.verbs.MwType.TYPE_2));
            SendWr bind = SendWr.bindMw(5, mw, org.roce4j.verbs.Mw.incRkey(mw.rkey()), new org.roce4j.verbs.MwBindInfo(
                    mr, mr.address(), 64, java.util.EnumSet.of(org.roce4j.verbs.AccessFlag.REMOTE_READ)))
                    .ud(pair.ahToB, pair.qpB.qpNum(), QpPair.QKEY);
            Expect.badWr(Errno.EINVAL, 0, () -> pair.qpA.postSend(bind));
        }
    }

    @ParameterizedTest(name = "{0}")
    @DisplayName("rxe validate_send_wr: more send SGEs than max_send_sge is EINVAL")
    @EnumSource(QpType.class)
    void tooManySendSges(QpType type) throws Exception {
        try (Endpoint a = Endpoint.first(backend); Endpoint b = Endpoint.second(backend)) {
            QpPair pair = QpPair.connect(a, b, type, Mtu.MTU_1024);
            Mr mr = a.register(256);
            int max = pair.qpA.initAttr().cap().maxSendSge();
            SendWr wr = new SendWr().wrId(5).opcode(WrOpcode.SEND).signaled(true);
            for (int i = 0; i <= max; i++) {
                wr.sge(mr, i, 1);
            }
            if (type == QpType.UD) {
                wr.ud(pair.ahToB, pair.qpB.qpNum(), QpPair.QKEY);
            }
            Expect.badWr(Errno.EINVAL, 0, () -> pair.qpA.postSend(wr));
        }
    }

    @ParameterizedTest(name = "{0}")
    @DisplayName("rxe_post_recv: more receive SGEs than max_recv_sge is EINVAL")
    @EnumSource(QpType.class)
    void tooManyRecvSges(QpType type) throws Exception {
        try (Endpoint a = Endpoint.first(backend); Endpoint b = Endpoint.second(backend)) {
            QpPair pair = QpPair.connect(a, b, type, Mtu.MTU_1024);
            Mr mr = b.register(256);
            int max = pair.qpB.initAttr().cap().maxRecvSge();
            RecvWr wr = new RecvWr().wrId(6);
            for (int i = 0; i <= max; i++) {
                wr.sge(mr, i, 1);
            }
            Expect.badWr(Errno.EINVAL, 0, () -> pair.qpB.postRecv(wr));
        }
    }

    @Test
    @DisplayName("rxe validate_send_wr: inline data beyond max_inline_data is EINVAL")
    void tooMuchInlineData() throws Exception {
        try (Endpoint a = Endpoint.first(backend); Endpoint b = Endpoint.second(backend)) {
            QpPair pair = QpPair.connect(a, b, QpType.RC, Mtu.MTU_1024, new QpCap(8, 8, 1, 1, 64),
                    QpPair.remoteAccess());
            int max = pair.qpA.initAttr().cap().maxInlineData();
            assertThat(max).isGreaterThanOrEqualTo(64);
            Mr mr = a.register(max + 1);
            Expect.badWr(Errno.EINVAL, 0, () -> pair.qpA.postSend(SendWr.send(1, mr, 0, max + 1).inline(true)));
        }
    }

    @Test
    @DisplayName("rxe validate_send_wr: an atomic whose SGE is not 8 bytes is EINVAL")
    void atomicLengthMustBeEight() throws Exception {
        try (Endpoint a = Endpoint.first(backend); Endpoint b = Endpoint.second(backend)) {
            QpPair pair = QpPair.connect(a, b, QpType.RC, Mtu.MTU_1024);
            Mr local = a.register(64);
            Mr remote = b.register(64);
            SendWr wr = new SendWr().wrId(3).opcode(WrOpcode.ATOMIC_FETCH_AND_ADD).sge(local, 0, 4)
                    .remote(remote.address(), remote.rkey()).compareAdd(1).signaled(true);
            Expect.badWr(Errno.EINVAL, 0, () -> pair.qpA.postSend(wr));
            assertThat(Bytes.u64(remote.segment(), 0)).isZero();
        }
    }

    @Test
    @DisplayName("ibv_post_send: ENOMEM when the send queue is full (the granted max_send_wr, as ibv_query_qp reports it, outstanding)")
    void sendQueueFullIsEnomem() throws Exception {
        try (Endpoint a = Endpoint.first(backend); Endpoint b = Endpoint.second(backend)) {
            // No receive at B: the first SEND is RNR-NAKed forever (rnr_retry 7), so nothing leaves the queue.
            QpPair pair = QpPair.connect(a, b, QpType.RC, Mtu.MTU_1024, QpCap.of(4, 4), QpPair.remoteAccess());
            int depth = grantedCap(pair.qpA).maxSendWr();
            Mr mr = a.register(64);
            for (int i = 0; i < depth; i++) {
                pair.qpA.postSend(SendWr.send(i, mr, 0, 8));
            }
            var bad = Expect.badWr("post_send beyond max_send_wr", Errno.ENOMEM, 0,
                    () -> pair.qpA.postSend(SendWr.send(depth, mr, 0, 8)));
            assertThat(bad.wrId()).isEqualTo(depth);
        }
    }

    @Test
    @DisplayName("ibv_post_recv: ENOMEM when the receive queue is full (the granted max_recv_wr, as ibv_query_qp reports it, posted)")
    void recvQueueFullIsEnomem() throws Exception {
        try (Endpoint e = Endpoint.first(backend)) {
            Qp qp = e.track(e.pd.createQp(QpInitAttr.of(QpType.RC, e.cq, QpCap.of(4, 4))));
            QpPair.bringUp(Mtu.MTU_1024, QpPair.remoteAccess()).init(qp);
            int depth = grantedCap(qp).maxRecvWr();
            Mr mr = e.register(64);
            for (int i = 0; i < depth; i++) {
                qp.postRecv(RecvWr.of(i, mr, 0, 64));
            }
            Expect.badWr("post_recv beyond max_recv_wr", Errno.ENOMEM, 0, () -> qp.postRecv(RecvWr.of(depth, mr, 0, 64)));
        }
    }

    /**
     * The depth the queues hold: what ibv_query_qp reports. Not the cap ibv_create_qp wrote back, which
     * kernel 6.1's rxe leaves at what was asked while its rings hold 2^k - 1
     * ({@link QueueCapacityTest#createQpReportsTheGrantedCaps} checks that the two agree).
     */
    private static QpCap grantedCap(Qp qp) {
        return qp.query(EnumSet.of(QpAttrMask.CAP)).cap();
    }

    @Test
    @DisplayName("ibv_post_send bad_wr: in a list the bad WR's index is reported, those before it are posted and complete, none after")
    void badWorkRequestInSendList() throws Exception {
        try (Endpoint a = Endpoint.first(backend); Endpoint b = Endpoint.second(backend)) {
            QpPair pair = QpPair.connect(a, b, QpType.RC, Mtu.MTU_1024);
            Mr src = a.register(64);
            Mr dst = b.register(256);
            for (int i = 0; i < 4; i++) {
                pair.qpB.postRecv(RecvWr.of(100 + i, dst, 64L * i, 64));
            }
            SendWr bad = new SendWr().wrId(12).opcode(WrOpcode.SEND).signaled(true);
            for (int i = 0; i <= pair.qpA.initAttr().cap().maxSendSge(); i++) {
                bad.sge(src, 0, 1);
            }
            List<SendWr> list = List.of(SendWr.send(10, src, 0, 8), SendWr.send(11, src, 0, 8), bad,
                    SendWr.send(13, src, 0, 8));
            var e = Expect.badWr(Errno.EINVAL, 2, () -> pair.qpA.postSend(list));
            assertThat(e.wrId()).isEqualTo(12);
            var sends = Completions.await(a.cq, 2);
            Expect.success(sends.get(0), 10, WcOpcode.SEND);
            Expect.success(sends.get(1), 11, WcOpcode.SEND);
            var recvs = Completions.await(b.cq, 2);
            Expect.success(recvs.get(0), 100, WcOpcode.RECV);
            Expect.success(recvs.get(1), 101, WcOpcode.RECV);
            assertThat(Completions.drain(a.cq)).as("wr 13 after the bad one was not posted").isEmpty();
            assertThat(Completions.drain(b.cq)).isEmpty();
        }
    }

    @Test
    @DisplayName("ibv_post_recv bad_wr: the bad receive's index is reported, the one before it is posted")
    void badWorkRequestInRecvList() throws Exception {
        try (Endpoint a = Endpoint.first(backend); Endpoint b = Endpoint.second(backend)) {
            QpPair pair = QpPair.connect(a, b, QpType.RC, Mtu.MTU_1024);
            Mr dst = b.register(256);
            RecvWr bad = new RecvWr().wrId(21);
            for (int i = 0; i <= pair.qpB.initAttr().cap().maxRecvSge(); i++) {
                bad.sge(dst, 64, 1);
            }
            var e = Expect.badWr(Errno.EINVAL, 1, () -> pair.qpB.postRecv(
                    List.of(RecvWr.of(20, dst, 0, 64), bad, RecvWr.of(22, dst, 128, 64))));
            assertThat(e.wrId()).isEqualTo(21);
            Mr src = a.register(64);
            pair.qpA.postSend(SendWr.send(1, src, 0, 8));
            pair.qpA.postSend(SendWr.send(2, src, 0, 8));
            Expect.success(Completions.awaitOne(b.cq), 20, WcOpcode.RECV);
            // The second SEND finds no receive (22 was never posted): RNR, so no second receive completion.
            assertThat(Completions.drain(b.cq)).isEmpty();
        }
    }

    @Test
    @DisplayName("IBTA 10.2.9: a QP with an SRQ takes no receives of its own (ibv_post_recv EINVAL)")
    void postRecvOnSrqQpIsEinval() throws Exception {
        try (Endpoint e = Endpoint.first(backend)) {
            var srq = e.track(e.pd.createSrq(new org.roce4j.verbs.SrqInitAttr(8, 1, 0)));
            Qp qp = e.track(e.pd.createQp(QpInitAttr.of(QpType.RC, e.cq, QpCap.of(4, 0)).withSrq(srq)));
            QpPair.bringUp(Mtu.MTU_1024, EnumSet.noneOf(AccessFlag.class)).init(qp);
            Mr mr = e.register(64);
            Expect.badWr(Errno.EINVAL, 0, () -> qp.postRecv(RecvWr.of(1, mr, 0, 64)));
        }
    }
}
