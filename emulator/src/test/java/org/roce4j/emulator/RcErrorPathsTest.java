package org.roce4j.emulator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.foreign.ValueLayout;
import java.util.List;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.roce4j.verbs.AsyncEvent;
import org.roce4j.verbs.AsyncEventType;
import org.roce4j.verbs.Cq;
import org.roce4j.verbs.Errno;
import org.roce4j.verbs.Mr;
import org.roce4j.verbs.Mtu;
import org.roce4j.verbs.Qp;
import org.roce4j.verbs.QpAttr;
import org.roce4j.verbs.QpCap;
import org.roce4j.verbs.QpInitAttr;
import org.roce4j.verbs.QpState;
import org.roce4j.verbs.QpType;
import org.roce4j.verbs.RecvWr;
import org.roce4j.verbs.SendWr;
import org.roce4j.verbs.VerbsException;
import org.roce4j.verbs.WcFlag;
import org.roce4j.verbs.WcOpcode;
import org.roce4j.verbs.WcStatus;
import org.roce4j.verbs.WorkCompletion;
import org.roce4j.verbs.WrOpcode;

class RcErrorPathsTest {
    private final TwoNodes nodes = new TwoNodes();
    private final TwoNodes.Side a = nodes.a;
    private final TwoNodes.Side b = nodes.b;

    @AfterEach
    void close() {
        nodes.close();
    }

    @Test
    @DisplayName("IBTA 9.7.5.2.2: a WRITE with a bad rkey is NAKed remote access error, nothing is written, the rest is flushed")
    void remoteAccessError() {
        Qp[] pair = nodes.connectedPair(QpType.RC, Mtu.MTU_1024);
        b.memory.set(ValueLayout.JAVA_LONG, 4096, 0x1122334455667788L);
        pair[0].postSend(SendWr.rdmaWrite(1, a.mr, 0, 64, b.mr.address() + 4096, b.mr.rkey() ^ 0x01));
        pair[0].postSend(SendWr.send(2, a.mr, 0, 8));
        List<WorkCompletion> completions = a.pollAll();
        assertThat(completions).extracting(WorkCompletion::wrId, WorkCompletion::status).containsExactly(
                org.assertj.core.groups.Tuple.tuple(1L, WcStatus.REM_ACCESS_ERR),
                org.assertj.core.groups.Tuple.tuple(2L, WcStatus.WR_FLUSH_ERR));
        assertThat(b.memory.get(ValueLayout.JAVA_LONG, 4096)).isEqualTo(0x1122334455667788L);
        assertThat(pair[0].state()).isEqualTo(QpState.ERR);
        assertThat(pair[1].state()).isEqualTo(QpState.ERR);
        assertThat(b.context.pollAsyncEvent()).contains(AsyncEvent.of(AsyncEventType.QP_ACCESS_ERR, pair[1]));
        assertThat(nodes.rnicB.counter(RnicCounter.NAKS_SENT)).isEqualTo(1);
    }

    @Test
    @DisplayName("a WRITE past the end of the region is a remote access error too (bounds)")
    void writeOutOfBounds() {
        Qp[] pair = nodes.connectedPair(QpType.RC, Mtu.MTU_1024);
        pair[0].postSend(SendWr.rdmaWrite(1, a.mr, 0, 2048, b.mr.address() + b.mr.length() - 1024, b.mr.rkey()));
        assertThat(a.pollAll()).extracting(WorkCompletion::status).containsExactly(WcStatus.REM_ACCESS_ERR);
    }

    @Test
    @DisplayName("receive buffer too small: LOC_LEN_ERR at the responder, NAK invalid request → REM_INV_REQ_ERR at the requester")
    void receiveTooSmall() {
        Qp[] pair = nodes.connectedPair(QpType.RC, Mtu.MTU_1024);
        pair[1].postRecv(RecvWr.of(9, b.mr, 0, 100));
        pair[0].postSend(SendWr.send(1, a.mr, 0, 500));
        assertThat(a.pollAll()).extracting(WorkCompletion::status).containsExactly(WcStatus.REM_INV_REQ_ERR);
        assertThat(b.pollAll()).singleElement().satisfies(wc -> {
            assertThat(wc.wrId()).isEqualTo(9);
            assertThat(wc.status()).isEqualTo(WcStatus.LOC_LEN_ERR);
        });
        assertThat(pair[1].state()).isEqualTo(QpState.ERR);
    }

    @Test
    @DisplayName("IBTA 9.7.5.2.8: no receive WQE → RNR NAK with min_rnr_timer; with rnr_retry 0 the send fails RNR_RETRY_EXC_ERR")
    void rnrRetryExceeded() {
        Qp qa = a.createQp(QpType.RC, 16);
        Qp qb = b.createQp(QpType.RC, 16);
        TwoNodes.connect(qa, qb.qpNum(), b.gid(), 1, 2, Mtu.MTU_1024, 0);
        TwoNodes.connect(qb, qa.qpNum(), a.gid(), 2, 1, Mtu.MTU_1024, 0);
        qa.postSend(SendWr.send(1, a.mr, 0, 10));
        assertThat(a.pollAll()).extracting(WorkCompletion::status).containsExactly(WcStatus.RNR_RETRY_EXC_ERR);
        assertThat(nodes.rnicB.counter(RnicCounter.RNR_NAKS_SENT)).isEqualTo(1);
        assertThat(qb.state()).isEqualTo(QpState.RTS); // RNR is not an error at the responder
    }

    @Test
    @DisplayName("RNR with rnr_retry 7 retries after the RNR timer until a receive is posted, then completes")
    void rnrRetryUntilReceivePosted() {
        Qp[] pair = nodes.connectedPair(QpType.RC, Mtu.MTU_1024);
        a.memory.set(ValueLayout.JAVA_INT, 0, 0xCAFEBABE);
        pair[0].postSend(SendWr.send(1, a.mr, 0, 4));
        nodes.fabric.runFor(java.time.Duration.ofMillis(5));
        assertThat(nodes.rnicB.counter(RnicCounter.RNR_NAKS_SENT)).isGreaterThan(1);
        assertThat(a.cq.poll(4)).isEmpty();
        pair[1].postRecv(RecvWr.of(5, b.mr, 0, 64));
        assertThat(a.pollAll()).extracting(WorkCompletion::status).containsExactly(WcStatus.SUCCESS);
        assertThat(b.pollAll()).extracting(WorkCompletion::byteLen).containsExactly(4);
        assertThat(b.memory.get(ValueLayout.JAVA_INT, 0)).isEqualTo(0xCAFEBABE);
    }

    @Test
    @DisplayName("IBTA 10.3.1: moving to ERR flushes every receive WQE; posting in ERR flushes at once")
    void flushOnError() {
        Qp[] pair = nodes.connectedPair(QpType.RC, Mtu.MTU_1024);
        pair[1].postRecv(RecvWr.of(1, b.mr, 0, 64));
        pair[1].postRecv(RecvWr.of(2, b.mr, 64, 64));
        pair[1].modify(new QpAttr().qpState(QpState.ERR));
        pair[1].postRecv(RecvWr.of(3, b.mr, 128, 64));
        List<WorkCompletion> flushed = b.pollAll();
        assertThat(flushed).extracting(WorkCompletion::wrId).containsExactly(1L, 2L, 3L);
        assertThat(flushed).extracting(WorkCompletion::status).containsOnly(WcStatus.WR_FLUSH_ERR);
        pair[0].modify(new QpAttr().qpState(QpState.ERR));
        pair[0].postSend(SendWr.send(4, a.mr, 0, 8).signaled(false));
        assertThat(a.pollAll()).extracting(WorkCompletion::wrId, WorkCompletion::status)
                .containsExactly(org.assertj.core.groups.Tuple.tuple(4L, WcStatus.WR_FLUSH_ERR));
    }

    @Test
    @DisplayName("an atomic on an address that is not 8-byte aligned is NAKed invalid request")
    void misalignedAtomic() {
        Qp[] pair = nodes.connectedPair(QpType.RC, Mtu.MTU_1024);
        pair[0].postSend(SendWr.fetchAndAdd(1, a.mr, 0, b.mr.address() + 4, b.mr.rkey(), 1));
        assertThat(a.pollAll()).extracting(WorkCompletion::status).containsExactly(WcStatus.REM_INV_REQ_ERR);
        assertThat(b.context.pollAsyncEvent()).map(AsyncEvent::type).contains(AsyncEventType.QP_REQ_ERR);
    }

    @Test
    @DisplayName("SEND with invalidate invalidates the rkey at the responder; a later WRITE with it fails")
    void sendWithInvalidate() {
        Qp[] pair = nodes.connectedPair(QpType.RC, Mtu.MTU_1024);
        Mr target = b.pd.regMr(nodes.arena.allocate(4096), TwoNodes.ALL_ACCESS);
        pair[1].postRecv(RecvWr.of(1, b.mr, 0, 64));
        pair[0].postSend(SendWr.send(1, a.mr, 0, 16).opcode(WrOpcode.SEND_WITH_INV).invalidateRkey(target.rkey()));
        assertThat(b.pollAll()).singleElement().satisfies(wc -> {
            assertThat(wc.status()).isEqualTo(WcStatus.SUCCESS);
            assertThat(wc.has(WcFlag.WITH_INV)).isTrue();
            assertThat(wc.invalidatedRkey()).isEqualTo(target.rkey());
        });
        assertThat(a.pollAll()).extracting(WorkCompletion::status).containsExactly(WcStatus.SUCCESS);
        pair[0].postSend(SendWr.rdmaWrite(2, a.mr, 0, 16, target.address(), target.rkey()));
        assertThat(a.pollAll()).extracting(WorkCompletion::status).containsExactly(WcStatus.REM_ACCESS_ERR);
    }

    @Test
    @DisplayName("LOCAL_INV invalidates an rkey of the QP's own PD")
    void localInvalidate() {
        Qp[] pair = nodes.connectedPair(QpType.RC, Mtu.MTU_1024);
        pair[1].postSend(new SendWr().wrId(1).opcode(WrOpcode.LOCAL_INV).invalidateRkey(b.mr.rkey()).signaled(true));
        assertThat(b.pollAll()).extracting(WorkCompletion::opcode, WorkCompletion::status)
                .containsExactly(org.assertj.core.groups.Tuple.tuple(WcOpcode.LOCAL_INV, WcStatus.SUCCESS));
        pair[0].postSend(SendWr.rdmaRead(2, a.mr, 0, 16, b.mr.address(), b.mr.rkey()));
        assertThat(a.pollAll()).extracting(WorkCompletion::status).containsExactly(WcStatus.REM_ACCESS_ERR);
    }

    @Test
    @DisplayName("RDMA WRITE with immediate consumes a receive WQE: RECV_RDMA_WITH_IMM, imm_data, byte_len of the write")
    void writeWithImmediate() {
        Qp[] pair = nodes.connectedPair(QpType.RC, Mtu.MTU_256);
        pair[1].postRecv(new RecvWr().wrId(3));
        pair[0].postSend(SendWr.rdmaWrite(1, a.mr, 0, 1000, b.mr.address() + 8192, b.mr.rkey())
                .opcode(WrOpcode.RDMA_WRITE_WITH_IMM).immData(0x01020304));
        assertThat(b.pollAll()).singleElement().satisfies(wc -> {
            assertThat(wc.opcode()).isEqualTo(WcOpcode.RECV_RDMA_WITH_IMM);
            assertThat(wc.immData()).isEqualTo(0x01020304);
            assertThat(wc.byteLen()).isEqualTo(1000);
            assertThat(wc.has(WcFlag.WITH_IMM)).isTrue();
        });
    }

    @Test
    @DisplayName("unsignaled successes complete silently; sq_sig_all signals everything")
    void signaling() {
        Qp[] pair = nodes.connectedPair(QpType.RC, Mtu.MTU_1024);
        pair[0].postSend(SendWr.rdmaWrite(1, a.mr, 0, 8, b.mr.address(), b.mr.rkey()).signaled(false));
        pair[0].postSend(SendWr.rdmaWrite(2, a.mr, 0, 8, b.mr.address(), b.mr.rkey()));
        assertThat(a.pollAll()).extracting(WorkCompletion::wrId).containsExactly(2L);
    }

    @Test
    @DisplayName("CQ overrun: CQ_ERR async event, poll answers EINVAL, the QP goes to error")
    void cqOverrun() {
        Cq small = b.context.createCq(1);
        Qp qb = b.pd.createQp(QpInitAttr.of(QpType.RC, small, QpCap.of(4, 4)));
        Qp qa = a.createQp(QpType.RC, 4);
        TwoNodes.connect(qa, qb.qpNum(), b.gid(), 1, 2, Mtu.MTU_1024);
        TwoNodes.connect(qb, qa.qpNum(), a.gid(), 2, 1, Mtu.MTU_1024);
        qb.postRecv(RecvWr.of(1, b.mr, 0, 64));
        qb.postRecv(RecvWr.of(2, b.mr, 64, 64));
        qa.postSend(SendWr.send(1, a.mr, 0, 8));
        qa.postSend(SendWr.send(2, a.mr, 0, 8));
        assertThatThrownBy(() -> small.poll(4)).isInstanceOfSatisfying(VerbsException.class,
                e -> assertThat(e.errno()).isEqualTo(Errno.EINVAL));
        assertThat(b.context.pollAsyncEvent()).contains(AsyncEvent.of(AsyncEventType.CQ_ERR, small));
        assertThat(qb.state()).isEqualTo(QpState.ERR);
    }
}
