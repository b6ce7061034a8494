package org.roce4j.emulator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.roce4j.verbs.Mtu;
import org.roce4j.verbs.Qp;
import org.roce4j.verbs.QpState;
import org.roce4j.verbs.QpType;
import org.roce4j.verbs.RecvWr;
import org.roce4j.verbs.SendWr;
import org.roce4j.verbs.WcStatus;
import org.roce4j.verbs.WorkCompletion;

/**
 * RNR end to end (IBTA 9.7.5.2.8, table 45, C9-141.1: rnr_retry, 7 = infinite) and loss on UC
 * (IBTA 9.7.6.1.2 / 9.8: no retransmission, a broken message is dropped, the next one is received).
 */
class RnrAndUnreliableLossTest {
    /** IBTA table 45: RNR timer code 14 is 1.28 ms. */
    private static final long RNR_CODE_14_NANOS = 1_280_000;

    private final TwoNodes nodes = new TwoNodes();
    private final TwoNodes.Side a = nodes.a;
    private final TwoNodes.Side b = nodes.b;
    private final FaultScript script = new FaultScript();

    @AfterEach
    void close() {
        nodes.close();
    }

    @Test
    @DisplayName("IBTA 9.7.5.2.8: no receive WQE → RNR NAKs carrying the responder's min_rnr_timer, each retry "
            + "after the encoded time (table 45), rnr_retry 3 → 4 transmissions, then RNR_RETRY_EXC_ERR")
    void rnrRetriesThenFails() {
        Qp[] pair = nodes.rcPair(Mtu.MTU_1024, rtr -> { }, rts -> rts.rnrRetry(3), rtr -> rtr.minRnrTimer(14), rts -> { });
        nodes.fabric.filter(script);
        pair[1].postRecv(RecvWr.of(3, b.mr, 0, 64)); // one receive: the first SEND takes it
        pair[0].postSend(SendWr.send(1, a.mr, 0, 16));
        pair[0].postSend(SendWr.send(2, a.mr, 0, 16));

        assertThat(a.pollAll()).extracting(WorkCompletion::wrId, WorkCompletion::status)
                .containsExactly(tuple(1L, WcStatus.SUCCESS), tuple(2L, WcStatus.RNR_RETRY_EXC_ERR));

        assertThat(script.requestPsnsFromA()).containsExactly(100, 101, 101, 101, 101);
        List<FaultScript.Frame> naks = script.framesFromB().stream().filter(FaultScript.Frame::isRnrNak).toList();
        assertThat(naks).hasSize(4).allMatch(f -> f.psn() == 101 && (f.syndrome() & 0x1F) == 14);
        List<FaultScript.Frame> sends = script.framesFromA().stream().filter(f -> f.psn() == 101).toList();
        for (int i = 1; i < sends.size(); i++) {
            long wait = sends.get(i).sentNanos() - naks.get(i - 1).sentNanos();
            assertThat(wait).as("wait before RNR retry " + i).isBetween(RNR_CODE_14_NANOS, RNR_CODE_14_NANOS + 10_000);
        }
        var countersA = a.context.queryPortCounters(1);
        assertThat(countersA.get("rcvd_rnr_err")).isEqualTo(4);
        assertThat(countersA.get("retry_rnr_exceeded_err")).isEqualTo(1);
        assertThat(countersA.get("local_ack_timeouts")).as("no ACK timeout during RNR waits").isZero();
        assertThat(b.context.queryPortCounters(1).get("send_rnr_err")).isEqualTo(4);
        assertThat(pair[0].state()).isEqualTo(QpState.ERR);
        assertThat(pair[1].state()).isEqualTo(QpState.RTS);
    }

    @Test
    @DisplayName("IBTA C9-141.1: rnr_retry 7 retries without end; a receive posted during an RNR wait lets the "
            + "next retry succeed, and the ACK timer never fired meanwhile")
    void receivePostedDuringRnrWait() {
        Qp[] pair = nodes.rcPair(Mtu.MTU_1024, rtr -> { }, rts -> rts.rnrRetry(7).timeout(1),
                rtr -> rtr.minRnrTimer(14), rts -> { });
        nodes.fabric.filter(script);
        a.memory.set(ValueLayout.JAVA_LONG, 0, 0x1234_5678_9ABC_DEF0L);
        pair[0].postSend(SendWr.send(1, a.mr, 0, 8));
        nodes.fabric.runFor(Duration.ofMillis(20)); // ~15 RNR rounds of 1.28 ms
        long rnrNaks = script.count(FaultScript.Frame::isRnrNak);
        assertThat(rnrNaks).isBetween(14L, 17L);
        assertThat(a.cq.poll(4)).isEmpty();

        pair[1].postRecv(RecvWr.of(5, b.mr, 4096, 64));

        assertThat(a.pollAll()).extracting(WorkCompletion::status).containsExactly(WcStatus.SUCCESS);
        assertThat(b.pollAll()).extracting(WorkCompletion::wrId, WorkCompletion::byteLen).containsExactly(tuple(5L, 8));
        assertThat(b.memory.get(ValueLayout.JAVA_LONG, 4096)).isEqualTo(0x1234_5678_9ABC_DEF0L);
        assertThat(script.framesFromB().getLast().isAck()).isTrue();
        assertThat(a.context.queryPortCounters(1).get("local_ack_timeouts")).isZero();
    }

    @Test
    @DisplayName("IBTA 9.8 (UC): a lost packet drops its whole message, nothing is retransmitted, and the next "
            + "message lands in the receive WQE the broken one had taken (rxe class D1)")
    void ucLossDropsOneMessage() {
        Qp[] pair = nodes.connectedPair(QpType.UC, Mtu.MTU_1024);
        nodes.fabric.filter(script.dropNth(1, FaultScript.requestFromA(101)));
        for (int i = 0; i < 4096; i++) {
            a.memory.set(ValueLayout.JAVA_BYTE, i, (byte) i);
        }
        a.memory.set(ValueLayout.JAVA_LONG, 8192, 0x55AA55AA55AA55AAL);
        pair[1].postRecv(RecvWr.of(21, b.mr, 0, 8192));
        pair[1].postRecv(RecvWr.of(22, b.mr, 16384, 8192));
        pair[0].postSend(SendWr.send(1, a.mr, 0, 4096));
        pair[0].postSend(SendWr.send(2, a.mr, 8192, 8));

        assertThat(a.pollAll()).extracting(WorkCompletion::wrId, WorkCompletion::status)
                .containsExactly(tuple(1L, WcStatus.SUCCESS), tuple(2L, WcStatus.SUCCESS));
        assertThat(b.pollAll()).extracting(WorkCompletion::wrId, WorkCompletion::status, WorkCompletion::byteLen)
                .containsExactly(tuple(21L, WcStatus.SUCCESS, 8));
        assertThat(b.memory.get(ValueLayout.JAVA_LONG, 0)).isEqualTo(0x55AA55AA55AA55AAL);
        assertThat(script.requestPsnsFromA()).containsExactly(100, 101, 102, 103, 104);
        assertThat(script.framesFromB()).isEmpty();
        assertThat(nodes.rnicB.counter(RnicCounter.DROPPED_UC_MESSAGE)).isEqualTo(2); // the MIDDLE and LAST after the gap
        assertThat(a.context.queryPortCounters(1).get("retransmitted_pkts")).isZero();
        assertThat(pair[1].state()).isEqualTo(QpState.RTS);
    }

    @Test
    @DisplayName("UD: a lost datagram is simply lost — the send completes, nothing is resent, the next arrives")
    void udLoss() {
        Qp[] pair = nodes.connectedPair(QpType.UD, Mtu.MTU_1024);
        nodes.fabric.filter(script.dropNth(1, f -> f.fromA() && f.isRequest()));
        var ah = a.pd.createAh(org.roce4j.verbs.AhAttr.of(b.gid(), 1, 1));
        pair[1].postRecv(RecvWr.of(31, b.mr, 0, 1024));
        a.memory.set(ValueLayout.JAVA_INT, 0, 77);
        pair[0].postSend(SendWr.send(1, a.mr, 0, 4).ud(ah, pair[1].qpNum(), 0x11111111));
        pair[0].postSend(SendWr.send(2, a.mr, 0, 4).ud(ah, pair[1].qpNum(), 0x11111111));

        assertThat(a.pollAll()).extracting(WorkCompletion::status).containsExactly(WcStatus.SUCCESS, WcStatus.SUCCESS);
        assertThat(b.pollAll()).extracting(WorkCompletion::wrId, WorkCompletion::byteLen).containsExactly(tuple(31L, 44));
        assertThat(script.count(f -> f.fromA())).isEqualTo(2);
        assertThat(MemorySegment.mismatch(b.memory, 40, 44, a.memory, 0, 4)).isEqualTo(-1L);
    }
}
