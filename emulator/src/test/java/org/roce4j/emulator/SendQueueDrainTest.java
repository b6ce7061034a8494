package org.roce4j.emulator;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.EnumSet;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.roce4j.verbs.AsyncEvent;
import org.roce4j.verbs.AsyncEventType;
import org.roce4j.verbs.Mtu;
import org.roce4j.verbs.Qp;
import org.roce4j.verbs.QpAttr;
import org.roce4j.verbs.QpAttrMask;
import org.roce4j.verbs.QpState;
import org.roce4j.verbs.QpType;
import org.roce4j.verbs.SendWr;
import org.roce4j.verbs.WcStatus;
import org.roce4j.verbs.WorkCompletion;

/** RTS → SQD (IBTA 11.6.3.1): the send queue drains what it has begun before the QP reports it drained. */
class SendQueueDrainTest {

    @Test
    @DisplayName("SQD with a WRITE in flight: query_qp says draining until its ACK, then SQ_DRAINED and not draining")
    void drainedOnlyOnceTheWriteInFlightIsAcknowledged() {
        try (TwoNodes nodes = new TwoNodes()) {
            nodes.fabric.linkDelay(Duration.ofNanos(10_000));
            Qp requester = nodes.connectedPair(QpType.RC, Mtu.MTU_1024)[0];
            requester.postSend(SendWr.rdmaWrite(1, nodes.a.mr, 0, 8, nodes.b.mr.address(), nodes.b.mr.rkey()));
            nodes.fabric.runFor(Duration.ofNanos(1_000)); // the WRITE is on the wire; its ACK is 20 µs away

            requester.modify(new QpAttr().qpState(QpState.SQD).enSqdAsyncNotify(true));

            assertThat(requester.query(EnumSet.of(QpAttrMask.STATE)).sqDraining()).as("the WRITE is in flight").isTrue();

            assertThat(nodes.a.pollAll()).extracting(WorkCompletion::status).containsExactly(WcStatus.SUCCESS);
            assertThat(nodes.a.context.pollAsyncEvent()).contains(AsyncEvent.of(AsyncEventType.SQ_DRAINED, requester));
            assertThat(requester.query(EnumSet.of(QpAttrMask.STATE)).sqDraining()).isFalse();
        }
    }
}
