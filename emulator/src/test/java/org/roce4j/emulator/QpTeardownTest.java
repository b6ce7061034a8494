package org.roce4j.emulator;

import java.lang.ref.WeakReference;
import java.time.Duration;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.roce4j.emulator.FaultScript.Frame;
import org.roce4j.emulator.node.NetworkPath;
import org.roce4j.emulator.transport.Responder;
import org.roce4j.emulator.verbs.EmulatedCq;
import org.roce4j.emulator.verbs.EmulatedQp;
import org.roce4j.verbs.AhAttr;
import org.roce4j.verbs.Mtu;
import org.roce4j.verbs.Qp;
import org.roce4j.verbs.QpType;
import org.roce4j.verbs.RecvWr;
import org.roce4j.verbs.SendWr;
import org.roce4j.verbs.WcStatus;
import org.roce4j.verbs.WorkCompletion;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

/** What leaves the wire around the end of a QP's life, and the IP fields Linux chooses. */
class QpTeardownTest {
    private final TwoNodes nodes = new TwoNodes();
    private final FaultScript script = new FaultScript();

    @AfterEach
    void close() {
        nodes.close();
    }

    @Test
    @DisplayName("rxe drains a QP's tasks on destroy: a QP destroyed right after its last receive completion "
            + "still sends the ACK it owes, so the peer's SEND completes SUCCESS, not RETRY_EXC_ERR")
    void destroyAfterTheLastReceiveStillAcknowledges() {
        Qp[] pair = nodes.connectedPair(QpType.RC, Mtu.MTU_1024);
        nodes.fabric.filter(script);
        pair[1].postRecv(RecvWr.of(2, nodes.b.mr, 0, 64));
        pair[0].postSend(SendWr.send(1, nodes.a.mr, 0, 64));
        EmulatedCq receiveCq = (EmulatedCq) nodes.b.cq;
        while (receiveCq.size() == 0) {
            assertThat(nodes.fabric.step()).as("the SEND reaches B").isTrue();
        }
        assertThat(script.count(f -> !f.fromA())).as("no ACK on the wire yet").isZero();

        pair[1].close();

        assertThat(nodes.a.pollAll()).extracting(WorkCompletion::wrId, WorkCompletion::status)
                .containsExactly(tuple(1L, WcStatus.SUCCESS));
        assertThat(script.count(f -> !f.fromA() && f.isAck())).isEqualTo(1);
    }

    @Test
    @DisplayName("a destroyed QP, its responder with it, is not kept by its RNIC: nothing but the application "
            + "held it, and once the application lets go the collector takes it")
    void aDestroyedQpIsNotKept() throws InterruptedException {
        Qp[] pair = nodes.connectedPair(QpType.RC, Mtu.MTU_1024);
        pair[1].postRecv(RecvWr.of(2, nodes.b.mr, 0, 64));
        pair[0].postSend(SendWr.send(1, nodes.a.mr, 0, 64)); // B's responder has worked
        assertThat(nodes.a.pollAll()).extracting(WorkCompletion::status).containsExactly(WcStatus.SUCCESS);
        WeakReference<Responder> responder = new WeakReference<>(((EmulatedQp) pair[1]).responder);
        pair[1].close();
        pair[1] = null;

        assertThat(afterCollections(responder)).as("the destroyed QP's responder, collected").isNull();
    }

    @Test
    @DisplayName("a QP destroyed while its ACK timer is armed leaves its RNIC's timers: the collector takes it, "
            + "and it retransmits nothing")
    void aQpDestroyedWithItsAckTimerArmedLeavesTheTimers() throws InterruptedException {
        Qp[] pair = nodes.connectedPair(QpType.RC, Mtu.MTU_1024);
        nodes.fabric.filter(script);
        pair[1].close(); // B's RNIC drops A's request as to an unknown QP: no ACK comes, A's timer stays armed
        pair[0].postSend(SendWr.send(1, nodes.a.mr, 0, 64));
        while (script.count(Frame::fromA) == 0) {
            assertThat(nodes.fabric.step()).as("A's request leaves").isTrue();
        }
        WeakReference<EmulatedQp> destroyed = new WeakReference<>((EmulatedQp) pair[0]);
        pair[0].close();
        pair[0] = null;

        assertThat(afterCollections(destroyed)).as("the destroyed QP, collected though its timer was armed").isNull();
        nodes.fabric.runFor(Duration.ofSeconds(10)); // past every ACK timeout and retry it had
        assertThat(script.count(Frame::fromA)).as("A's frames: the request only").isEqualTo(1);
    }

    @Test
    @DisplayName("Linux takes a RoCE path's hop limit from the route (ib_resolve_unicast_gid_dmac): "
            + "ibv_rc_pingpong's hop_limit 1 goes out as IPv4 TTL 64, as in the reference captures")
    void hopLimitComesFromTheRoute() {
        AhAttr hopLimitOne = new AhAttr(nodes.b.gid(), 1, 0, 1, 0, 0, 1);
        assertThat(hopLimitOne.hopLimit()).isEqualTo(1);
        assertThat(new NetworkPath(nodes.a.gid(), hopLimitOne).hopLimit).isEqualTo(64);
        AhAttr linkLocal = new AhAttr(nodes.b.context.queryGid(1, 0), 0, 0, 1, 0, 0, 1);
        assertThat(new NetworkPath(nodes.a.context.queryGid(1, 0), linkLocal).hopLimit)
                .as("a link-local destination keeps the AV's hop limit").isEqualTo(1);
    }

    /** What {@code reference} still holds after up to 50 full collections, 10 ms apart: null once it was collected. */
    private static <T> T afterCollections(WeakReference<T> reference) throws InterruptedException {
        for (int i = 0; i < 50 && reference.get() != null; i++) {
            System.gc();
            Thread.sleep(10);
        }
        return reference.get();
    }
}
