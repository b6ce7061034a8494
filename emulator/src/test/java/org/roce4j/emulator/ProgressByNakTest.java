package org.roce4j.emulator;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.stream.IntStream;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.roce4j.verbs.Mtu;
import org.roce4j.verbs.Qp;
import org.roce4j.verbs.QpType;
import org.roce4j.verbs.SendWr;
import org.roce4j.verbs.WcStatus;
import org.roce4j.verbs.WorkCompletion;

/**
 * Found by {@link FaultScheduleProperties} (reordered responses): a PSN sequence NAK acknowledges
 * every PSN before its own (IBTA 9.7.5.1.2), so it is forward progress like an ACK — it reloads
 * retry_cnt (IBTA 9.7.6.1.3; rxe check_psn → reset_retry_counters) and ends the go-back under way,
 * so the loss it reports is retried at once. The completer used to reload retry_cnt only on ACKs:
 * when reordering let each NAK overtake the ACKs before it, the ACKs arrived stale, and a transfer
 * that kept moving failed RETRY_EXC_ERR; a NAK reporting a new loss during a go-back was ignored
 * until the ACK timeout.
 */
class ProgressByNakTest {
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
    @DisplayName("IBTA 9.7.6.1.3 / 9.7.5.1.2: eight go-backs in a row, each after a sequence NAK that made progress "
            + "(no ACK gets through), do not exhaust retry_cnt 7: the NAK's progress reloads it")
    void nakProgressReloadsRetryCount() {
        Qp[] pair = nodes.connectedPair(QpType.RC, Mtu.MTU_1024);
        // Round k (k = 1..9) resends from PSN 100+k-1 and loses PSN 100+k (its k-th transmission):
        // the responder takes 100+k-1, NAKs 100+k on the next packet; no ACK but the last arrives.
        for (int k = 1; k <= 9; k++) {
            script.dropNth(k, FaultScript.requestFromA(100 + k));
        }
        script.dropAll(f -> !f.fromA() && f.isAck() && f.psn() != 109);
        nodes.fabric.filter(script);
        for (int i = 0; i < 10; i++) {
            pair[0].postSend(SendWr.rdmaWrite(i, a.mr, 64L * i, 64, b.mr.address() + 64L * i, b.mr.rkey()));
        }

        List<WorkCompletion> completions = a.pollAll();

        assertThat(completions).as("frames: %s", script.frames()).extracting(WorkCompletion::status)
                .containsOnly(WcStatus.SUCCESS).hasSize(10);
        assertThat(script.count(f -> f.isNak(0))).as("sequence NAKs 101..108").isEqualTo(8);
        var counters = a.context.queryPortCounters(1);
        assertThat(counters.get("completer_retry_err")).as("8 NAK go-backs + 1 timeout").isEqualTo(9);
        assertThat(counters.get("local_ack_timeouts")).isEqualTo(1);
        assertThat(counters.get("retry_exceeded_err")).isZero();
        assertThat(java.lang.foreign.MemorySegment.mismatch(a.memory, 0, 640, b.memory, 0, 640)).isEqualTo(-1L);
    }

    @Test
    @DisplayName("IBTA 9.7.5.2.1: during a go-back, a sequence NAK for a new loss that overtakes the ACKs before it "
            + "sends the requester back at once, not after the ACK timeout")
    void nakOvertakingAcksDuringAGoBack() {
        Qp[] pair = nodes.connectedPair(QpType.RC, Mtu.MTU_1024);
        nodes.fabric.filter(script
                .dropNth(1, FaultScript.requestFromA(101))   // → NAK 101, go-back from 101
                .dropNth(2, FaultScript.requestFromA(103))   // the go-back loses 103 → NAK 103
                .delayNth(1, 5_000, f -> !f.fromA() && f.isAck() && f.psn() == 101)   // ACKs 101, 102 of the
                .delayNth(1, 5_000, f -> !f.fromA() && f.isAck() && f.psn() == 102)); // go-back: after NAK 103
        for (int i = 0; i < 5; i++) {
            pair[0].postSend(SendWr.rdmaWrite(i, a.mr, 64L * i, 64, b.mr.address() + 64L * i, b.mr.rkey()));
        }
        long start = nodes.fabric.clock().nanoTime();

        assertThat(a.pollAll()).as("frames: %s", script.frames()).extracting(WorkCompletion::status)
                .containsOnly(WcStatus.SUCCESS).hasSize(5);
        assertThat(script.requestPsnsFromA()).containsExactlyElementsOf(IntStream.of(
                100, 101, 102, 103, 104, 101, 102, 103, 104, 103, 104).boxed().toList());
        assertThat(nodes.fabric.clock().nanoTime() - start).as("no ACK timeout").isLessThan(T14);
        assertThat(a.context.queryPortCounters(1).get("local_ack_timeouts")).isZero();
    }
}
