package org.roce4j.emulator.udp;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.roce4j.emulator.ReceivePolling;
import org.roce4j.emulator.RnicCounter;
import org.roce4j.emulator.fabric.Faults;
import org.roce4j.verbs.CqEx;
import org.roce4j.verbs.CqInitAttrEx;
import org.roce4j.verbs.CreateCqWcFlag;
import org.roce4j.verbs.Mtu;
import org.roce4j.verbs.Qp;
import org.roce4j.verbs.QpCap;
import org.roce4j.verbs.QpInitAttr;
import org.roce4j.verbs.QpType;
import org.roce4j.verbs.SendWr;
import org.roce4j.verbs.WcOpcode;
import org.roce4j.verbs.WcStatus;
import org.roce4j.verbs.WorkCompletion;

/** {@link ReceivePolling}: the sockets read by the application's CQ poll, or by a spinning thread, in order. */
@Timeout(120)
class ReceivePollingOverUdpTest {
    private UdpSide a;
    private UdpSide b;

    @AfterEach
    void close() {
        UdpSide.closeAll(a, b);
    }

    private void open(ReceivePolling onA, ReceivePolling onB) throws Exception {
        a = new UdpSide("rxe0", "127.0.0.2", UdpLinkConfig.DEFAULT.withReceivePolling(onA));
        b = new UdpSide("rxe1", "127.0.0.3", UdpLinkConfig.DEFAULT.withReceivePolling(onB));
    }

    @Test
    @DisplayName("rxpoll=app: 1000 RC SEND ping-pongs complete in order, the datagrams read by the CQ polls, nothing resent")
    void applicationPollReadsTheSockets() throws Exception {
        open(ReceivePolling.APPLICATION, ReceivePolling.APPLICATION);
        // An ACK timeout of about a second, as in spinningThreadReadsForAPassiveResponder below: a full suite's run
        // once saw one SEND resent here right after the 33 s two-process transfer (a pause of the JVM longer than
        // the usual 67 ms is the protocol's to recover from, not what this test is about).
        Qp[] qp = UdpSide.pair(a, b, QpType.RC, Mtu.MTU_1024, rts -> rts.timeout(18));
        PingPongLatencyTest.pingPongs(qp, 1000, a, b);
        for (UdpSide side : new UdpSide[] {a, b}) {
            UdpLinkCounters link = side.rnic.linkCounters();
            assertThat(side.rnic.rnic().counter(RnicCounter.RETRANSMITTED_PACKETS)).as("resent by " + side.rnic
                    + ": " + side.rnic.rnic().counters()).isZero(); // whether a NAK, an RNR NAK or a timeout
            assertThat(side.rnic.rnic().counter(RnicCounter.LOCAL_ACK_TIMEOUTS)).as("ACK timeouts").isZero();
            // Netty's loop reads the first datagrams, before the first poll, and a few when a poll waits on the
            // other device longer than the hold; the polls read the rest.
            assertThat(link.datagramsPolled()).as("polled on " + side.rnic + ": " + link)
                    .isGreaterThan(link.datagramsReceived() / 2).isLessThanOrEqualTo(link.datagramsReceived());
        }
    }

    @Test
    @DisplayName("rxpoll=spin: a polled datagram longer than the link takes is dropped and counted, one shorter than a BTH reaches the RNIC's parse")
    void polledOddSizes() throws Exception {
        open(ReceivePolling.OFF, ReceivePolling.SPIN);
        try (RawPeer peer = new RawPeer("127.0.0.5")) {
            // The first datagram after a quiet spell is Netty's, and wakes B's receive thread: it takes the socket
            // over and spins (for 20 ms after the last datagram), reading the next ones itself. Probes until it has,
            // then sends the pair; a loaded machine can hold this thread past the spin, so that Netty reads one of
            // the pair: then the pair is sent again, until the spinning thread read both (at most 20 tries).
            for (int attempt = 1; ; attempt++) {
                for (long polled = b.rnic.linkCounters().datagramsPolled();
                        b.rnic.linkCounters().datagramsPolled() == polled; ) {
                    long received = b.rnic.linkCounters().datagramsReceived();
                    peer.send(new byte[10], b.rnic.address());
                    awaitReceived(b, received + 1);
                }
                UdpLinkCounters before = b.rnic.linkCounters();
                long malformed = b.rnic.rnic().counter(RnicCounter.DROPPED_MALFORMED);
                peer.send(new byte[UdpLink.MAX_DATAGRAM + 100], b.rnic.address());
                peer.send(new byte[10], b.rnic.address());
                awaitReceived(b, before.datagramsReceived() + 2);
                // The link counts a datagram before the RNIC parses it: wait for the parse's count too.
                UdpLinkTest.eventually(() -> b.rnic.rnic().counter(RnicCounter.DROPPED_MALFORMED) > malformed,
                        "the short datagram dropped as malformed");
                UdpLinkCounters after = b.rnic.linkCounters();
                // Either reader counts both alike: the drops hold whoever read them.
                assertThat(after.oversizeDrops() - before.oversizeDrops()).as("oversize drops").isEqualTo(1);
                assertThat(b.rnic.rnic().counter(RnicCounter.DROPPED_MALFORMED) - malformed).as("malformed").isEqualTo(1);
                if (after.datagramsPolled() - before.datagramsPolled() == 2) {
                    return;
                }
                assertThat(attempt).as("tries until the spinning thread read both of the pair").isLessThan(20);
            }
        }
    }

    private static void awaitReceived(UdpSide side, long datagrams) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (side.rnic.linkCounters().datagramsReceived() < datagrams) {
            assertThat(System.nanoTime()).as(datagrams + " datagrams read within 20 s").isLessThan(deadline);
            Thread.sleep(1);
        }
    }

    @Test
    @DisplayName("rxpoll=app: a post runs the requester on the caller's thread: the WRITE is on the socket when postSend returns")
    void postSendsOnTheCallersThread() throws Exception {
        open(ReceivePolling.APPLICATION, ReceivePolling.OFF);
        Qp[] qp = UdpSide.pair(a, b, QpType.RC, Mtu.MTU_1024);
        for (int i = 0; i < 20; i++) {
            long sent = a.rnic.linkCounters().framesSent();
            qp[0].postSend(SendWr.rdmaWrite(i, a.mr, 0, 64, b.mr.address(), b.mr.rkey()));
            assertThat(a.rnic.linkCounters().framesSent()).as("sent when postSend returned").isEqualTo(sent + 1);
            assertThat(a.pollOne().status()).isEqualTo(WcStatus.SUCCESS);
        }
    }

    @Test
    @DisplayName("rxpoll=app and spin, with 1% of frames dropped and 1% duplicated: 200 ping-pongs all complete, the timers resend")
    void pollingUnderFaults() throws Exception {
        open(ReceivePolling.APPLICATION, ReceivePolling.SPIN);
        Qp[] qp = UdpSide.pair(a, b, QpType.RC, Mtu.MTU_1024);
        // Class loading and JIT on the first frames can outlast the ACK timeout (timeout 14, 67 ms): warm up first.
        PingPongLatencyTest.pingPongs(qp, 50, a, b);
        a.rnic.faults(Faults.seeded(17).drop(0.01).duplicate(0.01));
        b.rnic.faults(Faults.seeded(18).drop(0.01).duplicate(0.01));
        PingPongLatencyTest.pingPongs(qp, 200, a, b);
        assertThat(a.rnic.faultCounters().dropped() + b.rnic.faultCounters().dropped()).as("frames dropped").isPositive();
        long resent = a.rnic.rnic().counter(RnicCounter.RETRANSMITTED_PACKETS)
                + b.rnic.rnic().counter(RnicCounter.RETRANSMITTED_PACKETS);
        assertThat(resent).as("the drops were recovered by retransmission").isPositive();
        assertThat(a.rnic.linkCounters().datagramsPolled()).isPositive();
        assertThat(b.rnic.linkCounters().datagramsPolled()).isPositive();
    }

    @Test
    @DisplayName("rxpoll=app: once nobody polls the device's CQ, Netty's loop reads its sockets again")
    void withoutPollsNettyReads() throws Exception {
        open(ReceivePolling.APPLICATION, ReceivePolling.OFF);
        Qp[] qp = UdpSide.pair(a, b, QpType.RC, Mtu.MTU_1024);
        PingPongLatencyTest.pingPongs(qp, 50, a, b);
        long polled = a.rnic.linkCounters().datagramsPolled();
        assertThat(polled).as("A's polls read").isPositive();
        TimeUnit.MILLISECONDS.sleep(50); // well past the hold of A's last poll
        long received = a.rnic.linkCounters().datagramsReceived();
        for (int i = 0; i < 20; i++) { // A is only the responder: nobody polls its CQ
            qp[1].postSend(SendWr.rdmaWrite(i, b.mr, 0, 64, a.mr.address(), a.mr.rkey()));
            assertThat(b.pollOne().status()).isEqualTo(WcStatus.SUCCESS);
        }
        assertThat(a.rnic.linkCounters().datagramsReceived()).as("the WRITEs reached A").isGreaterThanOrEqualTo(received + 20);
        assertThat(a.rnic.linkCounters().datagramsPolled()).as("read by Netty, not by a poll").isEqualTo(polled);
    }

    @Test
    @DisplayName("rxpoll=app: ibv_start_poll on an empty extended CQ reads the sockets too")
    void startPollReadsTheSockets() throws Exception {
        open(ReceivePolling.APPLICATION, ReceivePolling.OFF);
        CqEx cq = a.context.createCqEx(CqInitAttrEx.of(64, java.util.EnumSet.noneOf(CreateCqWcFlag.class)));
        Qp qa = a.pd.createQp(QpInitAttr.of(QpType.RC, cq, new QpCap(16, 16, 1, 1, 0)));
        Qp qb = b.createQp(QpType.RC, 16);
        UdpSide.connect(qa, qb.qpNum(), b.gid(), 100, 200, Mtu.MTU_1024, rts -> { });
        UdpSide.connect(qb, qa.qpNum(), a.gid(), 200, 100, Mtu.MTU_1024, rts -> { });
        for (int i = 0; i < 50; i++) {
            qa.postSend(SendWr.rdmaWrite(i, a.mr, 0, 64, b.mr.address(), b.mr.rkey()));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (cq.startPoll() != 0) {
                assertThat(System.nanoTime()).as("a completion within 20 s").isLessThan(deadline);
            }
            assertThat(cq.status()).isEqualTo(WcStatus.SUCCESS);
            assertThat(cq.wrId()).isEqualTo(i);
            cq.endPoll();
        }
        assertThat(a.rnic.linkCounters().datagramsPolled()).as("ACKs read by ibv_start_poll").isPositive();
        qa.close();
        qb.close();
        cq.close();
    }

    @Test
    @DisplayName("rxpoll=spin: a passive responder's WRITEs are read by its spinning receive thread, none resent")
    void spinningThreadReadsForAPassiveResponder() throws Exception {
        open(ReceivePolling.OFF, ReceivePolling.SPIN);
        // An ACK timeout of about a second (4.096 µs × 2^18), not the usual 67 ms: only a WRITE left unread that
        // long is resent, not one whose ACK a loaded machine delayed (a resend there is the protocol's recovery).
        Qp[] qp = UdpSide.pair(a, b, QpType.RC, Mtu.MTU_1024, rts -> rts.timeout(18));
        for (int i = 0; i < 500; i++) {
            qp[0].postSend(SendWr.rdmaWrite(i, a.mr, 0, 64, b.mr.address() + 64, b.mr.rkey()));
            WorkCompletion wc = a.pollOne();
            assertThat(wc.status()).isEqualTo(WcStatus.SUCCESS);
            assertThat(wc.opcode()).isEqualTo(WcOpcode.RDMA_WRITE);
        }
        UdpLinkCounters link = b.rnic.linkCounters();
        assertThat(link.datagramsPolled()).as("B's receive thread read: " + link).isGreaterThan(link.datagramsReceived() / 2);
        assertThat(a.rnic.rnic().counter(RnicCounter.RETRANSMITTED_PACKETS)).as("resent").isZero();
        assertThat(b.pollNone()).as("nothing completes on the passive side").isTrue();
    }
}
