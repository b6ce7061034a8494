package org.roce4j.emulator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.roce4j.emulator.TestMemory.assertSameBytes;
import static org.roce4j.emulator.TestMemory.fill;
import static org.assertj.core.api.Assertions.tuple;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;
import java.util.stream.IntStream;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.roce4j.verbs.Mtu;
import org.roce4j.verbs.Qp;
import org.roce4j.verbs.QpAttr;
import org.roce4j.verbs.QpState;
import org.roce4j.verbs.QpType;
import org.roce4j.verbs.RecvWr;
import org.roce4j.verbs.SendWr;
import org.roce4j.verbs.WcStatus;
import org.roce4j.verbs.WorkCompletion;
import org.roce4j.wire.NakCode;
import org.roce4j.wire.Operation;
import org.roce4j.wire.OperationKind;

/**
 * IBTA 9.7.5.1.2 / 9.7.5.2.1: PSN sequence error NAK and go-back-N mid-message; implicit NAK and
 * implicit ACK from READ responses and atomic ACKs (IBTA 9.7.5.1.5, rxe comp "implicit NAK");
 * send completions in posting order through retransmissions (IBTA 10.8.6); FENCE across a retry.
 */
class GoBackNTest {
    private static final long T14 = 4096L << 14;

    private final TwoNodes nodes = new TwoNodes();
    private final TwoNodes.Side a = nodes.a;
    private final TwoNodes.Side b = nodes.b;
    private final FaultScript script = new FaultScript();

    @AfterEach
    void close() {
        nodes.close();
    }

    @Test
    @DisplayName("IBTA 9.7.5.2.1: a MIDDLE packet of a 10-packet WRITE lost → one sequence NAK for its PSN, "
            + "the rest dropped silently, retransmission from that PSN (MIDDLE), memory exact, no timeout")
    void sequenceNakMidWrite() {
        Qp[] pair = nodes.connectedPair(QpType.RC, Mtu.MTU_1024);
        nodes.fabric.filter(script.dropNth(1, FaultScript.requestFromA(104)));
        fill(a.memory, 0, 10240, 7);
        pair[0].postSend(SendWr.rdmaWrite(1, a.mr, 0, 10240, b.mr.address() + 8192, b.mr.rkey()));
        long start = nodes.now();

        assertThat(a.pollAll()).extracting(WorkCompletion::status).containsExactly(WcStatus.SUCCESS);

        assertThat(script.requestPsnsFromA()).containsExactlyElementsOf(IntStream.concat(
                IntStream.rangeClosed(100, 109), IntStream.rangeClosed(104, 109)).boxed().toList());
        FaultScript.Frame resent = script.framesFromA().get(10);
        assertThat(resent.opcode().operation()).isEqualTo(Operation.RDMA_WRITE_MIDDLE);
        assertThat(script.framesFromB()).extracting(FaultScript.Frame::psn, FaultScript.Frame::syndrome)
                .containsExactly(tuple(104, 0x60 | NakCode.PSN_SEQUENCE_ERROR.code()), tuple(109, 0x1F));
        assertSameBytes(a.memory, 0, b.memory, 8192, 10240);
        assertThat(nodes.now() - start).isLessThan(T14);
        var countersA = a.context.queryPortCounters(1);
        var countersB = b.context.queryPortCounters(1);
        assertThat(countersB.get("out_of_seq_request")).isEqualTo(1);
        assertThat(countersA.get("rcvd_seq_err")).isEqualTo(1);
        assertThat(countersA.get("completer_retry_err")).isEqualTo(1);
        assertThat(countersA.get("retransmitted_pkts")).isEqualTo(6);
        assertThat(countersA.get("local_ack_timeouts")).isZero();
    }

    @Test
    @DisplayName("rxe check_ack: a sequence NAK that acknowledges earlier PSNs is progress — retry_cnt counts "
            + "afresh, so two separate losses in one message do not exhaust retry_cnt 1")
    void sequenceNakWithProgressRestoresRetryCount() {
        Qp qa = a.createQp(QpType.RC, 16);
        Qp qb = b.createQp(QpType.RC, 16);
        TwoNodes.connect(qb, qa.qpNum(), a.gid(), 200, 100, Mtu.MTU_1024);
        TwoNodes.connect(qa, qb.qpNum(), b.gid(), 100, 200, Mtu.MTU_1024);
        // Only one retry allowed without progress (SQD→SQD is where RETRY_CNT may change, IBTA 10.3.1).
        qa.modify(new QpAttr().qpState(QpState.SQD));
        qa.modify(new QpAttr().retryCnt(1));
        qa.modify(new QpAttr().qpState(QpState.RTS));
        // First go-back from 102; its retransmission loses 106, a second go-back after progress.
        nodes.fabric.filter(script.dropNth(1, FaultScript.requestFromA(102)).dropNth(2, FaultScript.requestFromA(106)));
        fill(a.memory, 0, 10240, 9);
        qa.postSend(SendWr.rdmaWrite(1, a.mr, 0, 10240, b.mr.address() + 8192, b.mr.rkey()));

        assertThat(a.pollAll()).extracting(WorkCompletion::status).containsExactly(WcStatus.SUCCESS);
        assertThat(script.count(f -> !f.fromA() && f.isNak(NakCode.PSN_SEQUENCE_ERROR.code()))).isEqualTo(2);
        assertSameBytes(a.memory, 0, b.memory, 8192, 10240);
    }

    @Test
    @DisplayName("IBTA 9.7.5.2.1: a lost MIDDLE packet of a 10-packet SEND — the receive WQE is filled once, "
            + "at the right offsets, and completes once")
    void sequenceNakMidSend() {
        Qp[] pair = nodes.connectedPair(QpType.RC, Mtu.MTU_1024);
        nodes.fabric.filter(script.dropNth(1, FaultScript.requestFromA(106)));
        fill(a.memory, 0, 10000, 11);
        pair[1].postRecv(RecvWr.of(5, b.mr, 16384, 16384));
        pair[1].postRecv(RecvWr.of(6, b.mr, 65536, 16384));
        pair[0].postSend(SendWr.send(1, a.mr, 0, 10000));

        assertThat(a.pollAll()).extracting(WorkCompletion::status).containsExactly(WcStatus.SUCCESS);
        assertThat(b.pollAll()).extracting(WorkCompletion::wrId, WorkCompletion::status, WorkCompletion::byteLen)
                .containsExactly(tuple(5L, WcStatus.SUCCESS, 10000));
        assertSameBytes(a.memory, 0, b.memory, 16384, 10000);
        assertThat(script.framesFromA().get(10).opcode().operation()).isEqualTo(Operation.SEND_MIDDLE);
        assertThat(script.framesFromA().get(10).psn()).isEqualTo(106);
    }

    @Test
    @DisplayName("rxe comp implicit NAK: a gap before a READ response → the READ is re-requested from the "
            + "missing PSN with RETH address and length advanced; one retry, not one per later response")
    void readResponseGapRetriesFromTheGap() {
        Qp[] pair = nodes.connectedPair(QpType.RC, Mtu.MTU_1024);
        nodes.fabric.filter(script.dropNth(1, f -> !f.fromA() && f.psn() == 101));
        fill(b.memory, 4096, 6000, 21);
        pair[0].postSend(SendWr.rdmaRead(1, a.mr, 0, 6000, b.mr.address() + 4096, b.mr.rkey()));

        assertThat(a.pollAll()).extracting(WorkCompletion::status).containsExactly(WcStatus.SUCCESS);

        assertSameBytes(b.memory, 4096, a.memory, 0, 6000);
        List<FaultScript.Frame> requests = script.framesFromA();
        assertThat(requests).extracting(FaultScript.Frame::psn, FaultScript.Frame::rethVa, FaultScript.Frame::rethLength)
                .containsExactly(tuple(100, b.mr.address() + 4096, 6000),
                        tuple(101, b.mr.address() + 4096 + 1024, 6000 - 1024));
        assertThat(script.framesFromB()).extracting(FaultScript.Frame::psn)
                .containsExactly(100, 101, 102, 103, 104, 105, 101, 102, 103, 104, 105);
        assertThat(a.context.queryPortCounters(1).get("completer_retry_err")).isEqualTo(1);
        assertThat(b.context.queryPortCounters(1).get("duplicate_request")).isEqualTo(1);
    }

    @Test
    @DisplayName("IBTA 9.7.5.1.5: a READ response beyond the expected PSN acknowledges the WRITE before it "
            + "whose ACK was lost — no retransmission, completions in order")
    void readResponseIsAnImplicitAck() {
        Qp[] pair = nodes.connectedPair(QpType.RC, Mtu.MTU_1024);
        nodes.fabric.filter(script.dropAll(FaultScript.ackFromB()));
        pair[0].postSend(SendWr.rdmaWrite(1, a.mr, 0, 64, b.mr.address(), b.mr.rkey()));
        pair[0].postSend(SendWr.rdmaRead(2, a.mr, 1024, 64, b.mr.address() + 4096, b.mr.rkey()));
        long start = nodes.now();

        assertThat(a.pollAll()).extracting(WorkCompletion::wrId, WorkCompletion::status)
                .containsExactly(tuple(1L, WcStatus.SUCCESS), tuple(2L, WcStatus.SUCCESS));
        assertThat(script.requestPsnsFromA()).containsExactly(100, 101);
        assertThat(script.count(f -> f.dropped())).isEqualTo(1);
        assertThat(nodes.now() - start).isLessThan(T14);
    }

    @Test
    @DisplayName("IBTA 9.7.5.1.5: an atomic ACK acknowledges the SEND before it whose ACK was lost")
    void atomicAckIsAnImplicitAck() {
        Qp[] pair = nodes.connectedPair(QpType.RC, Mtu.MTU_1024);
        nodes.fabric.filter(script.dropAll(FaultScript.ackFromB()));
        pair[1].postRecv(RecvWr.of(9, b.mr, 0, 64));
        b.memory.set(ValueLayout.JAVA_LONG, 4096, 40);
        pair[0].postSend(SendWr.send(1, a.mr, 0, 64));
        pair[0].postSend(SendWr.fetchAndAdd(2, a.mr, 1024, b.mr.address() + 4096, b.mr.rkey(), 2));

        assertThat(a.pollAll()).extracting(WorkCompletion::wrId, WorkCompletion::status)
                .containsExactly(tuple(1L, WcStatus.SUCCESS), tuple(2L, WcStatus.SUCCESS));
        assertThat(a.memory.get(ValueLayout.JAVA_LONG, 1024)).isEqualTo(40);
        assertThat(b.memory.get(ValueLayout.JAVA_LONG, 4096)).isEqualTo(42);
        assertThat(script.requestPsnsFromA()).containsExactly(100, 101);
    }

    @Test
    @DisplayName("rxe comp implicit NAK: an ACK that covers a READ whose response was lost sends the requester "
            + "back to the READ")
    void ackCoveringAReadWithoutResponse() {
        Qp[] pair = nodes.connectedPair(QpType.RC, Mtu.MTU_1024);
        nodes.fabric.filter(script.dropNth(1, fromB(OperationKind.RDMA_READ_RESPONSE)));
        fill(b.memory, 4096, 64, 3);
        pair[0].postSend(SendWr.rdmaRead(1, a.mr, 0, 64, b.mr.address() + 4096, b.mr.rkey()));
        pair[0].postSend(SendWr.rdmaWrite(2, a.mr, 1024, 64, b.mr.address(), b.mr.rkey()));
        long start = nodes.now();

        assertThat(a.pollAll()).extracting(WorkCompletion::wrId, WorkCompletion::status)
                .containsExactly(tuple(1L, WcStatus.SUCCESS), tuple(2L, WcStatus.SUCCESS));
        assertSameBytes(b.memory, 4096, a.memory, 0, 64);
        assertThat(script.requestPsnsFromA()).containsExactly(100, 101, 100, 101);
        assertThat(nodes.now() - start).as("no timeout needed").isLessThan(T14);
        assertThat(a.context.queryPortCounters(1).get("completer_retry_err")).isEqualTo(1);
    }

    @Test
    @DisplayName("IBTA 10.8.6: send completions come in posting order even when a later WQE is acknowledged "
            + "first and an earlier one is retransmitted")
    void completionOrderThroughRetransmission() {
        Qp[] pair = nodes.connectedPair(QpType.RC, Mtu.MTU_1024);
        nodes.fabric.filter(script.dropNth(1, FaultScript.requestFromA(102)));
        pair[1].postRecv(RecvWr.of(1, b.mr, 0, 64));
        pair[1].postRecv(RecvWr.of(2, b.mr, 64, 64));
        pair[0].postSend(SendWr.send(1, a.mr, 0, 64));
        pair[0].postSend(SendWr.rdmaWrite(2, a.mr, 0, 3000, b.mr.address() + 8192, b.mr.rkey()));
        pair[0].postSend(SendWr.send(3, a.mr, 0, 64));
        pair[0].postSend(SendWr.rdmaRead(4, a.mr, 16384, 100, b.mr.address() + 8192, b.mr.rkey()));

        assertThat(a.pollAll()).extracting(WorkCompletion::wrId, WorkCompletion::status).containsExactly(
                tuple(1L, WcStatus.SUCCESS), tuple(2L, WcStatus.SUCCESS), tuple(3L, WcStatus.SUCCESS),
                tuple(4L, WcStatus.SUCCESS));
        assertThat(b.pollAll()).extracting(WorkCompletion::wrId).containsExactly(1L, 2L);
        assertThat(script.requestPsnsFromA()).containsExactly(100, 101, 102, 103, 104, 105, 102, 103, 104, 105);
    }

    @Test
    @DisplayName("IBTA 10.8.3.3: a FENCEd WRITE waits for the READ before it, also when the READ's response is "
            + "lost and the READ retried after a timeout")
    void fenceWaitsThroughReadRetry() {
        Qp[] pair = nodes.connectedPair(QpType.RC, Mtu.MTU_1024);
        nodes.fabric.filter(script.dropNth(1, fromB(OperationKind.RDMA_READ_RESPONSE)));
        b.memory.set(ValueLayout.JAVA_LONG, 0, 0x0102030405060708L);
        pair[0].postSend(SendWr.rdmaRead(1, a.mr, 0, 8, b.mr.address(), b.mr.rkey()));
        // The fenced WRITE overwrites what the READ reads: it must not reach B before the READ is done.
        a.memory.set(ValueLayout.JAVA_LONG, 512, -1L);
        pair[0].postSend(SendWr.rdmaWrite(2, a.mr, 512, 8, b.mr.address(), b.mr.rkey()).fence(true));

        assertThat(a.pollAll()).extracting(WorkCompletion::wrId, WorkCompletion::status)
                .containsExactly(tuple(1L, WcStatus.SUCCESS), tuple(2L, WcStatus.SUCCESS));
        assertThat(a.memory.get(ValueLayout.JAVA_LONG, 0)).isEqualTo(0x0102030405060708L);
        assertThat(b.memory.get(ValueLayout.JAVA_LONG, 0)).isEqualTo(-1L);
        assertThat(script.framesFromA()).extracting(f -> f.opcode().kind(), FaultScript.Frame::psn).containsExactly(
                tuple(OperationKind.RDMA_READ_REQUEST, 100), tuple(OperationKind.RDMA_READ_REQUEST, 100),
                tuple(OperationKind.RDMA_WRITE, 101));
    }

    @Test
    @DisplayName("IBTA 9.7.6.1.3: a READ response delayed past the timeout — the READ is retried and answered "
            + "again; the late original is dropped as stale, the data lands once")
    void delayedReadResponse() {
        Qp[] pair = nodes.connectedPair(QpType.RC, Mtu.MTU_1024);
        nodes.fabric.filter(script.delayNth(1, 2 * T14, fromB(OperationKind.RDMA_READ_RESPONSE)));
        fill(b.memory, 0, 512, 17);
        pair[0].postSend(SendWr.rdmaRead(1, a.mr, 0, 512, b.mr.address(), b.mr.rkey()));
        long start = nodes.now();

        assertThat(a.pollAll()).extracting(WorkCompletion::status).containsExactly(WcStatus.SUCCESS);
        nodes.fabric.runUntilIdle();

        assertSameBytes(b.memory, 0, a.memory, 0, 512);
        assertThat(script.requestPsnsFromA()).containsExactly(100, 100);
        assertThat(nodes.now() - start).as("the late response arrived too").isGreaterThanOrEqualTo(2 * T14);
        assertThat(nodes.rnicA.counter(RnicCounter.DROPPED_STALE_RESPONSE)).isEqualTo(1);
        assertThat(a.pollAll()).isEmpty();
    }

    private static java.util.function.Predicate<FaultScript.Frame> fromB(OperationKind kind) {
        return FaultScript.fromB(kind);
    }
}
