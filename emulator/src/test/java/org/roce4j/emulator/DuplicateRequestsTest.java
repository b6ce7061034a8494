package org.roce4j.emulator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.roce4j.verbs.Mtu;
import org.roce4j.verbs.Qp;
import org.roce4j.verbs.QpState;
import org.roce4j.verbs.SendWr;
import org.roce4j.verbs.WcStatus;
import org.roce4j.verbs.WorkCompletion;
import org.roce4j.wire.NakCode;
import org.roce4j.wire.OperationKind;

/**
 * IBTA 9.7.5.1.5 (C9-105, C9-107): duplicate READs are answered again from the responder's saved
 * resource, duplicate atomics from the saved result, never executed twice; IBTA 9.5.7 / rxe:
 * max_rd_atomic at the requester, max_dest_rd_atomic at the responder.
 */
class DuplicateRequestsTest {
    private final TwoNodes nodes = new TwoNodes();
    private final TwoNodes.Side a = nodes.a;
    private final TwoNodes.Side b = nodes.b;
    private final FaultScript script = new FaultScript();

    @AfterEach
    void close() {
        nodes.close();
    }

    @Test
    @DisplayName("IBTA C9-107: the first READ response is lost → the second shows the gap, the READ again; the "
            + "responder replays it from its saved resource (duplicate_request), the data arrives intact")
    void duplicateReadReplayed() {
        Qp[] pair = nodes.connectedPair(org.roce4j.verbs.QpType.RC, Mtu.MTU_1024);
        nodes.fabric.filter(script.dropNth(1, FaultScript.fromB(OperationKind.RDMA_READ_RESPONSE)));
        for (int i = 0; i < 2048; i++) {
            b.memory.set(ValueLayout.JAVA_BYTE, 8192 + i, (byte) (i ^ 0x5A));
        }
        pair[0].postSend(SendWr.rdmaRead(1, a.mr, 0, 2048, b.mr.address() + 8192, b.mr.rkey()));

        assertThat(a.pollAll()).extracting(WorkCompletion::status).containsExactly(WcStatus.SUCCESS);

        assertThat(MemorySegment.mismatch(a.memory, 0, 2048, b.memory, 8192, 8192 + 2048)).isEqualTo(-1L);
        assertThat(script.framesFromA()).extracting(f -> f.opcode().kind(), FaultScript.Frame::psn)
                .containsExactly(tuple(OperationKind.RDMA_READ_REQUEST, 100), tuple(OperationKind.RDMA_READ_REQUEST, 100));
        assertThat(script.framesFromB()).extracting(FaultScript.Frame::psn, FaultScript.Frame::dropped)
                .containsExactly(tuple(100, true), tuple(101, false), tuple(100, false), tuple(101, false));
        assertThat(b.context.queryPortCounters(1).get("duplicate_request")).isEqualTo(1);
        assertThat(a.context.queryPortCounters(1).get("completer_retry_err")).isEqualTo(1);
        assertThat(a.context.queryPortCounters(1).get("local_ack_timeouts")).isZero();
    }

    @Test
    @DisplayName("IBTA C9-107: FETCH_ADD whose ACK is lost is answered again from the saved original value; "
            + "memory shows it applied once")
    void duplicateFetchAddAppliedOnce() {
        Qp[] pair = nodes.connectedPair(org.roce4j.verbs.QpType.RC, Mtu.MTU_1024);
        nodes.fabric.filter(script.dropNth(1, FaultScript.fromB(OperationKind.ATOMIC_ACKNOWLEDGE)));
        b.memory.set(ValueLayout.JAVA_LONG, 4096, 10);
        pair[0].postSend(SendWr.fetchAndAdd(1, a.mr, 0, b.mr.address() + 4096, b.mr.rkey(), 5));

        assertThat(a.pollAll()).extracting(WorkCompletion::status).containsExactly(WcStatus.SUCCESS);

        assertThat(b.memory.get(ValueLayout.JAVA_LONG, 4096)).as("added once").isEqualTo(15);
        assertThat(a.memory.get(ValueLayout.JAVA_LONG, 0)).as("the original value").isEqualTo(10);
        assertThat(script.requestPsnsFromA()).containsExactly(100, 100);
        assertThat(script.framesFromB()).hasSize(2).allMatch(f -> f.opcode().kind() == OperationKind.ATOMIC_ACKNOWLEDGE);
        assertThat(b.context.queryPortCounters(1).get("duplicate_request")).isEqualTo(1);
    }

    @Test
    @DisplayName("IBTA C9-107: CMP_AND_SWP whose ACK is lost — re-executing would fail the compare and return "
            + "the new value; the saved answer returns the original and memory is swapped once")
    void duplicateCompareSwapAnsweredFromSavedResult() {
        Qp[] pair = nodes.connectedPair(org.roce4j.verbs.QpType.RC, Mtu.MTU_1024);
        nodes.fabric.filter(script.dropNth(1, FaultScript.fromB(OperationKind.ATOMIC_ACKNOWLEDGE)));
        b.memory.set(ValueLayout.JAVA_LONG, 4096, 10);
        pair[0].postSend(SendWr.compareAndSwap(1, a.mr, 0, b.mr.address() + 4096, b.mr.rkey(), 10, 20));

        assertThat(a.pollAll()).extracting(WorkCompletion::status).containsExactly(WcStatus.SUCCESS);

        assertThat(b.memory.get(ValueLayout.JAVA_LONG, 4096)).isEqualTo(20);
        assertThat(a.memory.get(ValueLayout.JAVA_LONG, 0)).isEqualTo(10);
    }

    @Test
    @DisplayName("IBTA 9.5.7 (o9-...): never more than max_rd_atomic READs/atomics outstanding at the requester")
    void maxRdAtomicAtTheRequester() {
        Qp[] pair = nodes.rcPair(Mtu.MTU_1024, rtr -> { }, rts -> rts.maxRdAtomic(2), rtr -> { }, rts -> { });
        nodes.fabric.filter(script);
        for (int i = 0; i < 6; i++) {
            pair[0].postSend(SendWr.rdmaRead(i, a.mr, i * 2048L, 2048, b.mr.address(), b.mr.rkey()));
        }
        pair[0].postSend(SendWr.fetchAndAdd(6, a.mr, 16384, b.mr.address() + 8192, b.mr.rkey(), 1));

        assertThat(a.pollAll()).hasSize(7).allMatch(wc -> wc.status() == WcStatus.SUCCESS);

        int outstanding = 0;
        int most = 0;
        for (FaultScript.Frame f : script.frames()) {
            OperationKind kind = f.opcode().kind();
            if (f.fromA() && (kind == OperationKind.RDMA_READ_REQUEST || kind == OperationKind.ATOMIC)) {
                outstanding++;
            } else if (!f.fromA() && (f.opcode().position().endsMessage() && kind == OperationKind.RDMA_READ_RESPONSE
                    || kind == OperationKind.ATOMIC_ACKNOWLEDGE)) {
                outstanding--;
            }
            most = Math.max(most, outstanding);
        }
        assertThat(most).as("READs/atomics in flight at most").isEqualTo(2);
        assertThat(outstanding).isZero();
    }

    @Test
    @DisplayName("rxe check_resource: a READ to a responder with max_dest_rd_atomic 0 is NAKed invalid request "
            + "→ REM_INV_REQ_ERR; the responder's QP goes to error")
    void maxDestRdAtomicZeroAtTheResponder() {
        Qp[] pair = nodes.rcPair(Mtu.MTU_1024, rtr -> { }, rts -> { }, rtr -> rtr.maxDestRdAtomic(0), rts -> { });
        nodes.fabric.filter(script);
        pair[0].postSend(SendWr.rdmaRead(1, a.mr, 0, 64, b.mr.address(), b.mr.rkey()));
        pair[0].postSend(SendWr.rdmaWrite(2, a.mr, 0, 64, b.mr.address(), b.mr.rkey()));

        assertThat(a.pollAll()).extracting(WorkCompletion::wrId, WorkCompletion::status)
                .containsExactly(tuple(1L, WcStatus.REM_INV_REQ_ERR), tuple(2L, WcStatus.WR_FLUSH_ERR));
        assertThat(script.framesFromB()).extracting(FaultScript.Frame::psn, FaultScript.Frame::syndrome)
                .containsExactly(tuple(100, 0x60 | NakCode.INVALID_REQUEST.code()));
        assertThat(pair[1].state()).isEqualTo(QpState.ERR);
    }

    @Test
    @DisplayName("IBTA C9-105: a duplicate WRITE is re-ACKed, not executed again (memory changed since stays)")
    void duplicateWriteNotReExecuted() {
        Qp[] pair = nodes.connectedPair(org.roce4j.verbs.QpType.RC, Mtu.MTU_1024);
        nodes.fabric.filter(script.dropNth(1, FaultScript.ackFromB()));
        a.memory.set(ValueLayout.JAVA_LONG, 0, 111);
        pair[0].postSend(SendWr.rdmaWrite(1, a.mr, 0, 8, b.mr.address(), b.mr.rkey()));
        nodes.fabric.step(); // the WRITE goes out
        nodes.fabric.step(); // and lands
        b.memory.set(ValueLayout.JAVA_LONG, 0, 222); // B's application writes after it, before the retry

        assertThat(a.pollAll()).extracting(WorkCompletion::status).containsExactly(WcStatus.SUCCESS);

        assertThat(script.requestPsnsFromA()).containsExactly(100, 100);
        assertThat(b.memory.get(ValueLayout.JAVA_LONG, 0)).isEqualTo(222);
    }
}
