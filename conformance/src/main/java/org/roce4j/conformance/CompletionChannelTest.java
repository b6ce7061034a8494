package org.roce4j.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.Optional;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.roce4j.verbs.CompChannel;
import org.roce4j.verbs.Cq;
import org.roce4j.verbs.Errno;
import org.roce4j.verbs.Mr;
import org.roce4j.verbs.Mtu;
import org.roce4j.verbs.Qp;
import org.roce4j.verbs.QpCap;
import org.roce4j.verbs.QpInitAttr;
import org.roce4j.verbs.QpType;
import org.roce4j.verbs.RecvWr;
import org.roce4j.verbs.SendWr;
import org.roce4j.verbs.WcOpcode;

/**
 * Completion events (IBTA 11.4.2.2, ibv_req_notify_cq / ibv_get_cq_event / ibv_ack_cq_events): an armed
 * CQ delivers exactly one event for the next completion and must be re-armed; solicited-only arming
 * wakes only for receives of SEND with the SE bit; unacknowledged events keep the CQ from being destroyed.
 *
 * <p>Each test first waits for the completion itself (polling drives a deterministic backend), then
 * asks the channel: the event is generated when the completion is queued, not when it is polled.
 */
@ExtendWith(Backend.Resolver.class)
class CompletionChannelTest {
    private static final Duration SHORT = Duration.ofMillis(100);

    private final Backend backend;

    CompletionChannelTest(Backend backend) {
        this.backend = backend;
    }

    /** B's receive completions go to {@code recvCq}; everything else as in {@link QpPair}. */
    private static QpPair pairWithRecvCq(Endpoint a, Endpoint b, Cq recvCq) {
        return QpPair.connect(a, b, Mtu.MTU_1024, QpPair.remoteAccess(), e -> e == b
                ? QpInitAttr.of(QpType.RC, b.cq, QpCap.of(16, 16)).withCqs(b.cq, recvCq)
                : QpInitAttr.of(QpType.RC, a.cq, QpCap.of(16, 16)));
    }

    /**
     * B's receive CQ on a completion channel, an RC pair to it, 64 bytes registered on A to send from,
     * and two 64-byte receives posted on B (wr_id 1 and 2).
     */
    private record ChannelPair(CompChannel channel, Cq cq, QpPair pair, Mr src) {
        static ChannelPair of(Endpoint a, Endpoint b) {
            CompChannel channel = b.track(b.context.createCompChannel());
            Cq cq = b.track(b.context.createCq(16, channel, 0));
            QpPair pair = pairWithRecvCq(a, b, cq);
            Mr src = a.register(64);
            Mr dst = b.register(128);
            pair.qpB.postRecv(RecvWr.of(1, dst, 0, 64));
            pair.qpB.postRecv(RecvWr.of(2, dst, 64, 64));
            return new ChannelPair(channel, cq, pair, src);
        }

        /** An 8-byte SEND from A's buffer. */
        SendWr send(long wrId) {
            return SendWr.send(wrId, src, 0, 8);
        }

        /** Posts {@code send} on A and waits for B's receive {@code recvWrId} to complete SUCCESS on the channel's CQ. */
        void deliver(SendWr send, long recvWrId) {
            pair.qpA.postSend(send);
            Expect.success(Completions.awaitOne(cq), recvWrId, WcOpcode.RECV);
        }
    }

    @Test
    @DisplayName("ibv_req_notify_cq(0): the next completion delivers exactly one event; without re-arming there is no second")
    void oneEventPerArm() throws Exception {
        try (Endpoint a = Endpoint.first(backend); Endpoint b = Endpoint.second(backend)) {
            ChannelPair on = ChannelPair.of(a, b);
            assertThat(on.channel().getCqEvent(SHORT)).as("no event before arming and completing").isEmpty();
            on.cq().reqNotify(false);
            on.deliver(on.send(10), 1);
            Optional<Cq> event = on.channel().getCqEvent(Completions.PATIENCE);
            assertThat(event).as("one event for the armed CQ").isPresent();
            assertThat(event.get()).isSameAs(on.cq());

            on.deliver(on.send(11), 2);
            assertThat(on.channel().getCqEvent(SHORT)).as("not re-armed: no second event").isEmpty();
            on.channel().ackCqEvents(on.cq(), 1);
        }
    }

    @Test
    @DisplayName("IBTA 11.4.2.2: solicited-only arming ignores an unsolicited SEND and wakes for a SEND with SOLICITED")
    void solicitedOnly() throws Exception {
        try (Endpoint a = Endpoint.first(backend); Endpoint b = Endpoint.second(backend)) {
            ChannelPair on = ChannelPair.of(a, b);
            on.cq().reqNotify(true);
            on.deliver(on.send(10), 1);
            assertThat(on.channel().getCqEvent(SHORT)).as("an unsolicited receive does not wake a solicited-only CQ")
                    .isEmpty();

            on.deliver(on.send(11).solicited(true), 2);
            Optional<Cq> event = on.channel().getCqEvent(Completions.PATIENCE);
            assertThat(event).as("a solicited receive wakes it").isPresent();
            assertThat(event.get()).isSameAs(on.cq());
            on.channel().ackCqEvents(on.cq(), 1);
        }
    }

    @Test
    @DisplayName("ibv_req_notify_cq on a CQ without a completion channel is EINVAL")
    void notifyWithoutChannel() throws Exception {
        try (Endpoint e = Endpoint.first(backend)) {
            Expect.errno(Errno.EINVAL, () -> e.cq.reqNotify(false));
        }
    }

    @Test
    @DisplayName("ibv_destroy_cq: EBUSY while a delivered event is unacknowledged; ibv_ack_cq_events lets it go")
    void unackedEventsKeepTheCq() throws Exception {
        try (Endpoint a = Endpoint.first(backend); Endpoint b = Endpoint.second(backend)) {
            CompChannel channel = b.track(b.context.createCompChannel());
            Cq cq = b.context.createCq(16, channel, 0);
            QpPair pair = pairWithRecvCq(a, b, cq);
            Mr src = a.register(64);
            Mr dst = b.register(64);
            pair.qpB.postRecv(RecvWr.of(1, dst, 0, 64));
            cq.reqNotify(false);
            pair.qpA.postSend(SendWr.send(10, src, 0, 8));
            Expect.success(Completions.awaitOne(cq), 1, WcOpcode.RECV);
            assertThat(channel.getCqEvent(Completions.PATIENCE)).isPresent();

            Qp qpB = b.untrack(pair.qpB);
            qpB.close();
            Expect.errno(Errno.EBUSY, cq::close);
            channel.ackCqEvents(cq, 1);
            cq.close();
        }
    }

    @Test
    @DisplayName("ibv_get_cq_event: events of two CQs on one channel name their own CQ")
    void twoCqsOneChannel() throws Exception {
        try (Endpoint a = Endpoint.first(backend); Endpoint b = Endpoint.second(backend)) {
            CompChannel channel = b.track(b.context.createCompChannel());
            Cq sendCq = b.track(b.context.createCq(16, channel, 0));
            Cq recvCq = b.track(b.context.createCq(16, channel, 0));
            QpPair pair = QpPair.connect(a, b, Mtu.MTU_1024, QpPair.remoteAccess(), e -> e == b
                    ? QpInitAttr.of(QpType.RC, sendCq, QpCap.of(16, 16)).withCqs(sendCq, recvCq)
                    : QpInitAttr.of(QpType.RC, a.cq, QpCap.of(16, 16)));
            Mr bufA = a.register(64);
            Mr bufB = b.register(64);
            pair.qpB.postRecv(RecvWr.of(1, bufB, 0, 64));
            recvCq.reqNotify(false);
            pair.qpA.postSend(SendWr.send(10, bufA, 0, 8));
            Expect.success(Completions.awaitOne(recvCq), 1, WcOpcode.RECV);
            assertThat(channel.getCqEvent(Completions.PATIENCE)).get().isSameAs(recvCq);

            pair.qpA.postRecv(RecvWr.of(2, bufA, 0, 64));
            sendCq.reqNotify(false);
            pair.qpB.postSend(SendWr.send(20, bufB, 0, 8));
            Expect.success(Completions.awaitOne(sendCq), 20, WcOpcode.SEND);
            assertThat(channel.getCqEvent(Completions.PATIENCE)).get().isSameAs(sendCq);
            Completions.awaitOne(a.cq);
            channel.ackCqEvents(recvCq, 1);
            channel.ackCqEvents(sendCq, 1);
        }
    }
}
