package org.roce4j.emulator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.roce4j.emulator.TestMemory.assertSameBytes;
import static org.roce4j.emulator.TestMemory.fill;
import static org.assertj.core.api.Assertions.tuple;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.Collections;
import java.util.List;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.roce4j.verbs.Mtu;
import org.roce4j.verbs.Qp;
import org.roce4j.verbs.QpState;
import org.roce4j.verbs.RecvWr;
import org.roce4j.verbs.SendWr;
import org.roce4j.verbs.WcOpcode;
import org.roce4j.verbs.WcStatus;
import org.roce4j.verbs.WorkCompletion;
import org.roce4j.wire.Operation;

/** IBTA 9.7.6.1.3 (C9-140, C9-141): the local ACK timeout, go-back-N from the oldest unacknowledged PSN, retry_cnt. */
class LocalAckTimeoutTest {
    /** 4.096 µs × 2^14 ≈ 67.1 ms: the timeout TwoNodes connects with. */
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
    @DisplayName("IBTA C9-141: nothing answers → RETRY_EXC_ERR after exactly retry_cnt + 1 transmissions, "
            + "each a timeout apart; QP → ERR, the rest flushed (send and receive)")
    void retryExhaustion() {
        Qp[] pair = nodes.rcPair(Mtu.MTU_1024, rtr -> { }, rts -> rts.timeout(14).retryCnt(3), rtr -> { }, rts -> { });
        nodes.fabric.filter(script.dropAll(f -> f.fromA()));
        pair[0].postRecv(RecvWr.of(7, a.mr, 8192, 64));
        pair[0].postSend(SendWr.send(1, a.mr, 0, 64));
        pair[0].postSend(SendWr.send(2, a.mr, 64, 64));
        long start = nodes.now();

        List<WorkCompletion> completions = a.pollAll();

        assertThat(completions).extracting(WorkCompletion::wrId, WorkCompletion::status, WorkCompletion::opcode)
                .containsExactly(tuple(1L, WcStatus.RETRY_EXC_ERR, WcOpcode.SEND),
                        tuple(2L, WcStatus.WR_FLUSH_ERR, WcOpcode.SEND),
                        tuple(7L, WcStatus.WR_FLUSH_ERR, WcOpcode.RECV));
        assertThat(pair[0].state()).isEqualTo(QpState.ERR);
        assertThat(Collections.frequency(script.requestPsnsFromA(), 100)).as("transmissions of PSN 100").isEqualTo(4);
        assertThat(Collections.frequency(script.requestPsnsFromA(), 101)).as("transmissions of PSN 101").isEqualTo(4);
        List<Long> sendTimes = script.framesFromA().stream().filter(f -> f.psn() == 100)
                .map(FaultScript.Frame::sentNanos).toList();
        for (int i = 1; i < sendTimes.size(); i++) {
            assertThat(sendTimes.get(i) - sendTimes.get(i - 1)).as("gap before retransmission " + i).isEqualTo(T14);
        }
        assertThat(nodes.now() - start).as("virtual time to the error").isBetween(4 * T14, 4 * T14 + 100_000);
        var counters = a.context.queryPortCounters(1);
        assertThat(counters.get("local_ack_timeouts")).isEqualTo(4);
        assertThat(counters.get("completer_retry_err")).isEqualTo(3);
        assertThat(counters.get("retry_exceeded_err")).isEqualTo(1);
        assertThat(counters.get("retransmitted_pkts")).isEqualTo(6);
        assertThat(counters.get("sent_pkts")).isEqualTo(8);
    }

    @Test
    @DisplayName("IBTA C9-141: retry_cnt 7 is 7 retries, not infinite; timeout 21 (8.6 s each, ~69 s of protocol time) "
            + "costs well under a second of wall time on virtual time")
    void retryCountSevenOnVirtualTime() {
        nodes.fabric.runUntilIdleLimits(10_000_000, Duration.ofMinutes(10));
        Qp[] pair = nodes.rcPair(Mtu.MTU_1024, rtr -> { }, rts -> rts.timeout(21).retryCnt(7), rtr -> { }, rts -> { });
        nodes.fabric.filter(script.dropAll(f -> f.fromA()));
        pair[0].postSend(SendWr.rdmaWrite(1, a.mr, 0, 64, b.mr.address(), b.mr.rkey()));
        long startVirtual = nodes.now();
        long startWall = System.nanoTime();

        List<WorkCompletion> completions = a.pollAll();

        long wall = System.nanoTime() - startWall;
        assertThat(completions).extracting(WorkCompletion::status).containsExactly(WcStatus.RETRY_EXC_ERR);
        assertThat(script.requestPsnsFromA()).containsExactly(100, 100, 100, 100, 100, 100, 100, 100);
        long timeout = 4096L << 21;
        assertThat(nodes.now() - startVirtual).isBetween(8 * timeout, 8 * timeout + 100_000);
        assertThat(Duration.ofNanos(wall)).isLessThan(Duration.ofMillis(500));
    }

    @Test
    @DisplayName("IBTA 9.7.6.1.3: the last packet of a WRITE is lost → one timeout, go back to the oldest "
            + "unacknowledged PSN; the responder re-ACKs the duplicates; memory exact")
    void lastPacketLost() {
        Qp[] pair = nodes.connectedPair(rc(), Mtu.MTU_1024);
        nodes.fabric.filter(script.dropNth(1, FaultScript.requestFromA(103)));
        fill(a.memory, 0, 4096, 5);
        pair[0].postSend(SendWr.rdmaWrite(1, a.mr, 0, 4096, b.mr.address() + 65536, b.mr.rkey()));
        long start = nodes.now();

        assertThat(a.pollAll()).extracting(WorkCompletion::wrId, WorkCompletion::status)
                .containsExactly(tuple(1L, WcStatus.SUCCESS));

        assertThat(script.requestPsnsFromA()).containsExactly(100, 101, 102, 103, 100, 101, 102, 103);
        assertThat(script.framesFromA().get(4).opcode().operation()).isEqualTo(Operation.RDMA_WRITE_FIRST);
        assertThat(script.framesFromA().get(4).rethVa()).isEqualTo(b.mr.address() + 65536);
        assertThat(script.framesFromB()).allMatch(FaultScript.Frame::isAck)
                .extracting(FaultScript.Frame::psn).containsExactly(102, 102, 102, 103);
        assertThat(nodes.now() - start).isBetween(T14, T14 + 100_000);
        assertSameBytes(a.memory, 0, b.memory, 65536, 4096);
        assertThat(a.context.queryPortCounters(1).get("local_ack_timeouts")).isEqualTo(1);
        assertThat(a.context.queryPortCounters(1).get("retransmitted_pkts")).isEqualTo(4);
        assertThat(b.context.queryPortCounters(1).get("duplicate_request")).isEqualTo(3);
    }

    @Test
    @DisplayName("IBTA C9-105: the ACK of a SEND is lost → timeout, the SEND again; the responder re-ACKs it "
            + "without executing it twice or taking a second receive WQE")
    void ackLost() {
        Qp[] pair = nodes.connectedPair(rc(), Mtu.MTU_1024);
        nodes.fabric.filter(script.dropNth(1, FaultScript.ackFromB()));
        fill(a.memory, 0, 100, 9);
        fill(a.memory, 100, 100, 77);
        pair[1].postRecv(RecvWr.of(11, b.mr, 0, 256));
        pair[1].postRecv(RecvWr.of(12, b.mr, 1024, 256));
        pair[0].postSend(SendWr.send(1, a.mr, 0, 100));

        assertThat(a.pollAll()).extracting(WorkCompletion::status).containsExactly(WcStatus.SUCCESS);
        assertThat(b.pollAll()).extracting(WorkCompletion::wrId, WorkCompletion::byteLen)
                .containsExactly(tuple(11L, 100));
        assertThat(script.requestPsnsFromA()).containsExactly(100, 100);
        assertThat(script.framesFromB()).extracting(FaultScript.Frame::psn, FaultScript.Frame::dropped)
                .containsExactly(tuple(100, true), tuple(100, false));

        pair[0].postSend(SendWr.send(2, a.mr, 100, 100));
        assertThat(a.pollAll()).extracting(WorkCompletion::status).containsExactly(WcStatus.SUCCESS);
        assertThat(b.pollAll()).extracting(WorkCompletion::wrId).containsExactly(12L);
        assertSameBytes(a.memory, 0, b.memory, 0, 100);
        assertSameBytes(a.memory, 100, b.memory, 1024, 100);
        assertThat(b.context.queryPortCounters(1).get("duplicate_request")).isEqualTo(1);
        assertThat(b.context.queryPortCounters(1).get("rdma_recvs")).isEqualTo(2);
        assertThat(a.context.queryPortCounters(1).get("rdma_sends")).isEqualTo(2);
    }

    @Test
    @DisplayName("IBTA 9.7.6.1.3: a timeout mid-message goes back to the first unacknowledged PSN — a MIDDLE "
            + "packet, at its byte offset — not to the start of the message")
    void timeoutResumesMidMessage() {
        Qp[] pair = nodes.connectedPair(rc(), Mtu.MTU_1024);
        // 70 packets: AckReq on the 64th (PSN 163) gets 100..163 acknowledged; 164..169 are lost once.
        nodes.fabric.filter(script.dropFirst(6, f -> f.fromA() && f.isRequest() && f.psn() >= 164));
        int length = 70 * 1024;
        fill(a.memory, 0, length, 3);
        pair[0].postSend(SendWr.rdmaWrite(1, a.mr, 0, length, b.mr.address() + 262144, b.mr.rkey()));

        assertThat(a.pollAll()).extracting(WorkCompletion::status).containsExactly(WcStatus.SUCCESS);

        List<FaultScript.Frame> requests = script.framesFromA();
        assertThat(requests).hasSize(76);
        assertThat(requests.subList(70, 76)).extracting(FaultScript.Frame::psn)
                .containsExactly(164, 165, 166, 167, 168, 169);
        assertThat(requests.get(70).opcode().operation()).isEqualTo(Operation.RDMA_WRITE_MIDDLE);
        assertThat(requests.get(75).opcode().operation()).isEqualTo(Operation.RDMA_WRITE_LAST);
        assertSameBytes(a.memory, 0, b.memory, 262144, length);
        assertThat(a.context.queryPortCounters(1).get("local_ack_timeouts")).isEqualTo(1);
        assertThat(b.context.queryPortCounters(1).get("duplicate_request")).isZero();
    }

    @Test
    @DisplayName("IBTA 9.7.6.1.3: timeout 0 arms no timer — a lost packet waits forever, and no time passes")
    void timeoutZeroIsInfinite() {
        Qp[] pair = nodes.rcPair(Mtu.MTU_1024, rtr -> { }, rts -> rts.timeout(0), rtr -> { }, rts -> { });
        nodes.fabric.filter(script.dropNth(1, FaultScript.requestFromA(100)));
        pair[0].postSend(SendWr.rdmaWrite(1, a.mr, 0, 64, b.mr.address(), b.mr.rkey()));
        long start = nodes.now();

        assertThat(a.pollAll()).isEmpty();

        assertThat(nodes.now() - start).isLessThan(1_000_000);
        assertThat(script.requestPsnsFromA()).containsExactly(100);
        assertThat(pair[0].state()).isEqualTo(QpState.RTS);
    }

    @Test
    @DisplayName("a corrupted frame fails the ICRC at the receiver (icrc_errors), and the timeout recovers it")
    void corruptedFrameRecoveredByTimeout() {
        Qp[] pair = nodes.connectedPair(rc(), Mtu.MTU_1024);
        int[] seen = {0};
        nodes.fabric.filter((frame, length, sent, nominal) -> {
            if (seen[0]++ == 0) {
                frame[length - 10] ^= 0x40; // a payload byte of the first request
            }
            return nominal;
        });
        fill(a.memory, 0, 512, 1);
        pair[0].postSend(SendWr.rdmaWrite(1, a.mr, 0, 512, b.mr.address(), b.mr.rkey()));

        assertThat(a.pollAll()).extracting(WorkCompletion::status).containsExactly(WcStatus.SUCCESS);
        assertSameBytes(a.memory, 0, b.memory, 0, 512);
        assertThat(b.context.queryPortCounters(1).get("icrc_errors")).isEqualTo(1);
        assertThat(b.context.queryPortCounters(1).get("dropped_bad_icrc")).isEqualTo(1);
        assertThat(a.context.queryPortCounters(1).get("local_ack_timeouts")).isEqualTo(1);
    }

    private static org.roce4j.verbs.QpType rc() {
        return org.roce4j.verbs.QpType.RC;
    }
}
