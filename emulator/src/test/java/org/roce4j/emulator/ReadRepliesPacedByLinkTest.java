package org.roce4j.emulator;

import org.roce4j.emulator.node.Rnic;
import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.util.List;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.roce4j.emulator.fabric.Fabric;
import org.roce4j.verbs.Context;
import org.roce4j.verbs.Cq;
import org.roce4j.verbs.Mr;
import org.roce4j.verbs.Mtu;
import org.roce4j.verbs.Pd;
import org.roce4j.verbs.Qp;
import org.roce4j.verbs.QpCap;
import org.roce4j.verbs.QpInitAttr;
import org.roce4j.verbs.QpType;
import org.roce4j.verbs.SendWr;
import org.roce4j.verbs.WcStatus;
import org.roce4j.verbs.WorkCompletion;
import org.roce4j.wire.MacAddress;

/**
 * Bounded work per request (issue 13): a responder sends a READ's responses as its link has room
 * (rxe read_reply, one response per run, the task rescheduled), not all at once. Two nodes on a
 * deterministic fabric, each on a {@link HeldLink} whose queue the test empties by hand.
 */
class ReadRepliesPacedByLinkTest {
    private static final int MTU = 1024;
    private static final int REQUESTER_PSN = 100;

    private final Fabric fabric = Fabric.deterministic();
    private final Arena arena = Arena.ofShared();
    private final HeldLink requesterLink = new HeldLink();
    private final HeldLink responderLink = new HeldLink();
    private SoftRnic requesterRnic;
    private SoftRnic responderRnic;
    private Side requester;
    private Side responder;
    private Qp qp;
    private Qp peer;

    private final class Side {
        final Context context;
        final Pd pd;
        final Cq cq;
        final MemorySegment memory = arena.allocate(2 << 20, 4096);
        final Mr mr;

        Side(SoftRnic rnic) {
            context = rnic.device().open();
            pd = context.allocPd();
            cq = context.createCq(64);
            mr = pd.regMr(memory, TwoNodes.ALL_ACCESS);
        }

        Qp createQp() {
            return pd.createQp(QpInitAttr.of(QpType.RC, cq, new QpCap(16, 16, 1, 1, 0)));
        }
    }

    @BeforeEach
    void connect() throws Exception {
        requesterRnic = SoftRnic.builder(fabric).name("rxe0").mac(MacAddress.parse("02:00:00:00:00:01"))
                .ipv4((Inet4Address) InetAddress.getByName("10.0.0.1")).link(requesterLink).attach();
        responderRnic = SoftRnic.builder(fabric).name("rxe1").mac(MacAddress.parse("02:00:00:00:00:02"))
                .ipv4((Inet4Address) InetAddress.getByName("10.0.0.2")).link(responderLink).attach();
        requester = new Side(requesterRnic);
        responder = new Side(responderRnic);
        qp = requester.createQp();
        peer = responder.createQp();
        // Timeout 0: no local ACK timer, so virtual time passing while frames are held retries nothing.
        TwoNodes.connect(qp, peer.qpNum(), responder.context.queryGid(1, 1), REQUESTER_PSN, 200, Mtu.MTU_1024,
                rtr -> { }, rts -> rts.timeout(0));
        TwoNodes.connect(peer, qp.qpNum(), requester.context.queryGid(1, 1), 200, REQUESTER_PSN, Mtu.MTU_1024,
                rtr -> { }, rts -> rts.timeout(0));
        for (int i = 0; i < (2 << 20); i += 8) {
            responder.memory.set(ValueLayout.JAVA_LONG_UNALIGNED, i, i * 0x9E3779B97F4A7C15L);
        }
    }

    @AfterEach
    void close() {
        fabric.close();
        arena.close();
    }

    private void postRead(int packets) {
        qp.postSend(SendWr.rdmaRead(1, requester.mr, 0, packets * MTU, responder.mr.address(), responder.mr.rkey()));
        fabric.runUntilIdle();
        assertThat(requesterLink.held).as("the READ request").hasSize(1);
    }

    private WorkCompletion pollOne() {
        List<WorkCompletion> wcs = requester.cq.poll(4);
        assertThat(wcs).as("completions").hasSize(1);
        return wcs.getFirst();
    }

    private void assertReadBytes(int packets) {
        long length = (long) packets * MTU;
        assertThat(MemorySegment.mismatch(requester.memory, 0, length, responder.memory, 0, length)).isEqualTo(-1L);
    }

    /** Moves frames both ways until neither link holds any, checking the responder's bound on the way. */
    private void pumpUntilQuiet(int perStep) {
        while (!requesterLink.held.isEmpty() || !responderLink.held.isEmpty()) {
            requesterLink.deliverAll(responderLink);
            fabric.runUntilIdle();
            assertThat(responderLink.held.size()).as("READ frames waiting in the responder's link")
                    .isLessThanOrEqualTo(Rnic.READ_QUEUE_HIGH);
            responderLink.deliver(perStep, requesterLink, i -> false);
            fabric.runUntilIdle();
        }
    }

    @Test
    @DisplayName("Bounded work per request: a READ of 1000 responses puts 256 (READ_QUEUE_HIGH) in the link, "
            + "the rest as the link drains; the READ completes with every byte and nothing sent twice")
    void aReadKeepsAtMostReadQueueHighFramesInTheLink() {
        postRead(1000);
        requesterLink.deliverAll(responderLink);
        fabric.runUntilIdle();
        assertThat(responderLink.held).as("frames the READ put in the link at once").hasSize(Rnic.READ_QUEUE_HIGH);
        assertThat(HeldLink.psn(responderLink.held.getLast())).isEqualTo(REQUESTER_PSN + Rnic.READ_QUEUE_HIGH - 1);

        responderLink.deliver(100, requesterLink, i -> false);
        fabric.runUntilIdle();
        assertThat(responderLink.held).as("above READ_QUEUE_LOW: no more yet").hasSize(Rnic.READ_QUEUE_HIGH - 100);
        responderLink.deliver(100, requesterLink, i -> false);
        fabric.runUntilIdle();
        assertThat(responderLink.held).as("drained to 56, refilled").hasSize(Rnic.READ_QUEUE_HIGH);

        pumpUntilQuiet(100);
        assertThat(pollOne().status()).isEqualTo(WcStatus.SUCCESS);
        assertReadBytes(1000);
        assertThat(responderRnic.counter(RnicCounter.FRAMES_SENT)).as("each response once").isEqualTo(1000);
        assertThat(responderRnic.peakReadFramesQueued()).isEqualTo(Rnic.READ_QUEUE_HIGH);
    }

    @Test
    @DisplayName("IBTA C9-107 with paced responses: a response lost in the middle brings a duplicate READ from its "
            + "PSN; the responder moves its cursor there (MIDDLE responses from that PSN) and the READ completes")
    void aDuplicateReadFromTheMiddleMovesTheCursor() {
        postRead(1000);
        requesterLink.deliverAll(responderLink);
        fabric.runUntilIdle();
        responderLink.deliver(200, requesterLink, i -> i == 150); // response 150 lost
        fabric.runUntilIdle();
        assertThat(requesterLink.held).as("the READ again, from the lost response's PSN").hasSize(1);
        assertThat(HeldLink.psn(requesterLink.held.getFirst())).isEqualTo(REQUESTER_PSN + 150);
        // What was queued after the gap is of no use to the requester any more: lost too.
        responderLink.deliver(responderLink.held.size(), requesterLink, i -> true);
        requesterLink.deliverAll(responderLink);
        fabric.runUntilIdle();
        assertThat(responderRnic.counter(RnicCounter.DUPLICATE_REQUESTS)).isEqualTo(1);
        byte[] first = responderLink.held.getFirst();
        assertThat(HeldLink.psn(first)).as("the replay starts at the PSN asked for").isEqualTo(REQUESTER_PSN + 150);
        assertThat(HeldLink.opcode(first)).as("RDMA READ Response Middle").isEqualTo(0x0E);
        assertThat(responderLink.held.size()).isLessThanOrEqualTo(Rnic.READ_QUEUE_HIGH);

        pumpUntilQuiet(64);
        assertThat(pollOne().status()).isEqualTo(WcStatus.SUCCESS);
        assertReadBytes(1000);
    }

    @Test
    @DisplayName("A request arriving while at most CATCH_UP_LIMIT responses are owed has them sent first, in PSN "
            + "order (rxe holds it behind the READ), and is then executed")
    void aRequestBehindAShortReadHasTheRestSentFirst() {
        postRead(300);
        byte[] request = requesterLink.held.getFirst().clone();
        requesterLink.deliverAll(responderLink);
        fabric.runUntilIdle();
        assertThat(responderLink.held).hasSize(Rnic.READ_QUEUE_HIGH);
        HeldLink.setPsn(request, REQUESTER_PSN + 300); // a second READ of the same, at the next PSN
        responderLink.receive(request);
        fabric.runUntilIdle();
        assertThat(responderRnic.counter(RnicCounter.DROPPED_BEHIND_READ)).isZero();
        assertThat(responderLink.held).as("the 44 owed responses came first, at once").hasSize(300);
        for (int i = 0; i < 300; i++) {
            assertThat(HeldLink.psn(responderLink.held.get(i))).isEqualTo(REQUESTER_PSN + i);
        }
        responderLink.deliver(300, requesterLink, i -> true);
        fabric.runUntilIdle();
        assertThat(HeldLink.psn(responderLink.held.getFirst())).as("then the second READ's responses")
                .isEqualTo(REQUESTER_PSN + 300);
    }

    @Test
    @DisplayName("A request arriving while more than CATCH_UP_LIMIT responses are owed is dropped and counted "
            + "(dropped_behind_read); the responder does not send the rest at once")
    void aRequestBehindALongReadIsDroppedAndCounted() {
        postRead(1000);
        byte[] request = requesterLink.held.getFirst().clone();
        requesterLink.deliverAll(responderLink);
        fabric.runUntilIdle();
        HeldLink.setPsn(request, REQUESTER_PSN + 1000);
        responderLink.receive(request);
        fabric.runUntilIdle();
        assertThat(responderRnic.counter(RnicCounter.DROPPED_BEHIND_READ)).isEqualTo(1);
        assertThat(responderLink.held).hasSize(Rnic.READ_QUEUE_HIGH);

        pumpUntilQuiet(128);
        assertThat(pollOne().status()).isEqualTo(WcStatus.SUCCESS);
        assertReadBytes(1000);
    }

    @Test
    @DisplayName("rxe read_reply rechecks the MR: a region deregistered while a READ's responses are being sent "
            + "ends the READ with a remote access NAK (REM_ACCESS_ERR at the requester, QP_ACCESS_ERR at the "
            + "responder) and nothing more is read from it")
    void aRegionDeregisteredMidReadEndsItWithARemoteAccessError() {
        postRead(1000);
        requesterLink.deliverAll(responderLink);
        fabric.runUntilIdle();
        responder.mr.close();
        responderLink.deliver(Rnic.READ_QUEUE_HIGH, requesterLink, i -> false);
        fabric.runUntilIdle();
        assertThat(responderLink.held).as("no response after the region went away, one NAK").hasSize(1);
        assertThat(HeldLink.opcode(responderLink.held.getFirst())).as("RC Acknowledge").isEqualTo(0x11);
        assertThat(responderRnic.counter(RnicCounter.NAKS_SENT)).isEqualTo(1);
        assertThat(responder.context.pollAsyncEvent())
                .contains(org.roce4j.verbs.AsyncEvent.of(org.roce4j.verbs.AsyncEventType.QP_ACCESS_ERR, peer));
        responderLink.deliverAll(requesterLink);
        fabric.runUntilIdle();
        assertThat(pollOne().status()).isEqualTo(WcStatus.REM_ACCESS_ERR);
    }
}
