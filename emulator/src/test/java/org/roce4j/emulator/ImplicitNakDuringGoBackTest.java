package org.roce4j.emulator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import java.lang.foreign.ValueLayout;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.roce4j.verbs.Mtu;
import org.roce4j.verbs.Qp;
import org.roce4j.verbs.QpType;
import org.roce4j.verbs.RecvWr;
import org.roce4j.verbs.SendWr;
import org.roce4j.verbs.WcStatus;
import org.roce4j.verbs.WorkCompletion;
import org.roce4j.wire.OperationKind;

/**
 * Found by {@link FaultScheduleProperties}: an ACK that covers a SEND and the atomic after it, whose
 * response was lost, arriving while a go-back was under way. The ACK acknowledges the SEND and is
 * an implicit NAK for the atomic (IBTA 9.7.5.1.5; rxe comp check_psn → COMPST_ERROR_RETRY). The
 * completer used to mark the SEND done but leave its expected PSN on it, and ignore the retry (a
 * go-back was "already under way"); the ACK timeout then went back to the SEND's PSN, which no
 * unfinished WQE holds: nothing was sent, no timer was armed, and the QP hung with no completion.
 */
class ImplicitNakDuringGoBackTest {
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
    @DisplayName("IBTA 9.7.5.1.5: during a go-back, an ACK covering a SEND and an atomic whose response was lost "
            + "sends the requester back to the atomic at once; the atomic is replayed, applied once, all complete")
    void ackCoveringAnAtomicDuringAGoBack() {
        Qp[] pair = nodes.connectedPair(QpType.RC, Mtu.MTU_1024);
        nodes.fabric.filter(script
                .dropNth(1, FaultScript.requestFromA(100))                        // → NAK, go-back from 100
                .dropNth(1, f -> !f.fromA() && f.isAck() && f.psn() == 100)       // the ACK of the SEND
                .dropNth(1, FaultScript.fromB(OperationKind.ATOMIC_ACKNOWLEDGE))); // the atomic's response
        b.memory.set(ValueLayout.JAVA_LONG, 4096, 40);
        pair[1].postRecv(RecvWr.of(7, b.mr, 0, 64));
        pair[1].postRecv(RecvWr.of(8, b.mr, 64, 64));
        pair[0].postSend(SendWr.send(1, a.mr, 0, 16));
        pair[0].postSend(SendWr.fetchAndAdd(2, a.mr, 1024, b.mr.address() + 4096, b.mr.rkey(), 2));
        pair[0].postSend(SendWr.send(3, a.mr, 0, 16));
        long start = nodes.fabric.clock().nanoTime();

        assertThat(a.pollAll()).as("frames: %s", script.frames())
                .extracting(WorkCompletion::wrId, WorkCompletion::status)
                .containsExactly(tuple(1L, WcStatus.SUCCESS), tuple(2L, WcStatus.SUCCESS), tuple(3L, WcStatus.SUCCESS));
        assertThat(b.pollAll()).extracting(WorkCompletion::wrId).containsExactly(7L, 8L);
        assertThat(a.memory.get(ValueLayout.JAVA_LONG, 1024)).as("the original value, replayed").isEqualTo(40);
        assertThat(b.memory.get(ValueLayout.JAVA_LONG, 4096)).as("applied once").isEqualTo(42);
        assertThat(script.requestPsnsFromA()).as("go back to 100 after the NAK, then to the atomic at 101")
                .containsExactly(100, 101, 102, 100, 101, 102, 101, 102);
        assertThat(nodes.fabric.clock().nanoTime() - start).as("no ACK timeout needed").isLessThan(T14);
        assertThat(a.context.queryPortCounters(1).get("local_ack_timeouts")).isZero();
    }
}
