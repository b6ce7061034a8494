package org.roce4j.emulator.cm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.roce4j.emulator.cm.CmNodes.expect;
import static org.roce4j.emulator.cm.CmNodes.expectAndAck;
import static org.roce4j.emulator.cm.CmNodes.param;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.roce4j.cm.CmEvent;
import org.roce4j.cm.CmEventType;
import org.roce4j.cm.CmId;
import org.roce4j.emulator.fabric.Faults;
import org.roce4j.emulator.fabric.FrameMatch;
import org.roce4j.verbs.QpState;
import org.roce4j.verbs.RecvWr;
import org.roce4j.verbs.SendWr;
import org.roce4j.verbs.WcStatus;
import org.roce4j.wire.mad.CmAttribute;

/**
 * Fault rules aimed at CM MADs by type, and the outcomes Linux gives: retries, then the
 * connection; UNREACHABLE when every REQ is lost; the passive side established by the first data
 * packet when the RTU is lost; DISCONNECTED after a lost DREQ's retry — all in virtual time.
 */
class CmFaultsTest {
    private final CmNodes nodes = new CmNodes();

    @AfterEach
    void close() {
        nodes.close();
    }

    private long millis() {
        return nodes.fabric.clock().nanoTime() / 1_000_000;
    }

    @Test
    @DisplayName("FrameMatch.cm(REQ): the first two REQs dropped — the third (the second retry, 2 × 6144 ms later) connects")
    void droppedRequestsAreRetried() {
        nodes.fabric.faults(Faults.seeded(7).dropNth(1, FrameMatch.cm(CmAttribute.REQ))
                .dropNth(2, FrameMatch.cm(CmAttribute.REQ)));
        long start = millis();
        nodes.connectClient();
        expectAndAck(nodes.server, CmEventType.ESTABLISHED);
        assertThat(millis() - start).isBetween(2 * 6144L, 2 * 6144L + 50);
        assertThat(nodes.fabric.faultCounters().dropped()).isEqualTo(2);
    }

    @Test
    @DisplayName("Every REQ dropped: 16 REQs, then UNREACHABLE −ETIMEDOUT after 98.3 s of virtual time, and no hang")
    void everyRequestDroppedIsUnreachable() {
        nodes.fabric.faults(Faults.seeded(7).drop(1.0, FrameMatch.cm(CmAttribute.REQ)));
        long start = millis();
        CmId clientId = nodes.connectingClient().id;
        CmEvent unreachable = nodes.client.getEvent(Duration.ofSeconds(300)).orElseThrow();
        assertThat(unreachable.type()).isEqualTo(CmEventType.UNREACHABLE);
        assertThat(unreachable.status()).isEqualTo(-110);
        assertThat(millis() - start).isEqualTo(16 * 6144L);
        assertThat(nodes.fabric.faultCounters().dropped()).isEqualTo(16);
        assertThat(nodes.server.pollEvent()).isEmpty();
        unreachable.ack();
    }

    @Test
    @DisplayName("IBTA communication established: the RTU lost, the server's first SEND from the client makes it ESTABLISHED")
    void lostRtuIsReplacedByTheFirstDataPacket() {
        nodes.fabric.faults(Faults.seeded(7).drop(1.0, FrameMatch.cm(CmAttribute.RTU)));
        CmNodes.Connected p = nodes.connectClient();
        assertThat(nodes.server.pollEvent()).isEmpty(); // no RTU: the server waits
        p.client().memory.asByteBuffer().put("data".getBytes(StandardCharsets.US_ASCII));
        p.client().qp.postSend(SendWr.send(2, p.client().mr, 0, 4));
        CmEvent established = expect(nodes.server, CmEventType.ESTABLISHED);
        assertThat(millis()).isLessThan(1000); // at the packet, not at a REP timeout
        established.ack();
        assertThat(p.server().poll()).singleElement().satisfies(wc -> assertThat(wc.status()).isEqualTo(WcStatus.SUCCESS));
        // The REP's retries stopped with the connection: nothing more happens.
        assertThat(nodes.server.getEvent(Duration.ofSeconds(120))).isEmpty();
        assertThat(p.server().qp.state()).isEqualTo(QpState.RTS);
    }

    @Test
    @DisplayName("The first DREQ dropped: its retry (6144 ms later) reaches the server; DISCONNECTED on both sides")
    void lostDreqIsRetried() {
        CmNodes.Connected p = nodes.connectClient();
        expectAndAck(nodes.server, CmEventType.ESTABLISHED);
        nodes.fabric.faults(Faults.seeded(7).dropNth(1, FrameMatch.cm(CmAttribute.DREQ)));
        long start = millis();
        p.clientId().disconnect();
        CmEvent heard = nodes.server.getEvent(Duration.ofSeconds(30)).orElseThrow();
        assertThat(heard.type()).isEqualTo(CmEventType.DISCONNECTED);
        heard.ack();
        assertThat(millis() - start).isBetween(6144L, 6200L);
        p.serverId().disconnect();
        CmEvent disconnected = expect(nodes.client, CmEventType.DISCONNECTED);
        assertThat(disconnected.status()).isZero();
        disconnected.ack();
    }

    @Test
    @DisplayName("Every DREQ dropped: the client is DISCONNECTED anyway (−ETIMEDOUT) after the retries; the server never hears of it")
    void everyDreqDroppedStillDisconnects() {
        CmNodes.Connected p = nodes.connectClient();
        expectAndAck(nodes.server, CmEventType.ESTABLISHED);
        nodes.fabric.faults(Faults.seeded(7).drop(1.0, FrameMatch.cm(CmAttribute.DREQ)));
        p.clientId().disconnect();
        CmEvent disconnected = nodes.client.getEvent(Duration.ofSeconds(300)).orElseThrow();
        assertThat(disconnected.type()).isEqualTo(CmEventType.DISCONNECTED);
        assertThat(disconnected.status()).isEqualTo(-110);
        disconnected.ack();
        expectAndAck(nodes.client, CmEventType.TIMEWAIT_EXIT);
        assertThat(nodes.server.pollEvent()).isEmpty();
    }

    @Test
    @DisplayName("cm_dup_req_handler / cm_dup_rep_handler: a duplicated REQ and a duplicated REP change nothing — one request, one connection")
    void duplicatesAreAbsorbed() {
        nodes.fabric.faults(Faults.seeded(7).duplicate(1.0, FrameMatch.cm(CmAttribute.REQ, CmAttribute.REP)));
        nodes.connectClient();
        expectAndAck(nodes.server, CmEventType.ESTABLISHED);
        assertThat(nodes.server.getEvent(Duration.ofSeconds(30))).isEmpty();
        assertThat(nodes.client.getEvent(Duration.ofSeconds(30))).isEmpty();
        assertThat(nodes.fabric.faultCounters().duplicated()).isEqualTo(2);
    }

    @Test
    @DisplayName("cma_ib_req_handler's MRA: a server slower than the REQ's 16 tries (120 s) still connects — the repeated REQ gets an MRA, and the client waits 2^24 × 4.096 µs more per try")
    void slowAcceptIsCoveredByTheMra() {
        CmId clientId = nodes.connectingClient().id;
        CmEvent request = expect(nodes.server, CmEventType.CONNECT_REQUEST);
        CmId serverId = request.id();
        request.ack();
        assertThat(nodes.client.getEvent(Duration.ofSeconds(120))).isEmpty(); // no UNREACHABLE at 98 s
        nodes.endpoint(serverId);
        serverId.accept(param(null));
        expectAndAck(nodes.client, CmEventType.ESTABLISHED);
        expectAndAck(nodes.server, CmEventType.ESTABLISHED);
    }

    @Test
    @DisplayName("Every REP dropped: the server gives up after 16 REPs 4096 ms apart (UNREACHABLE), the client after its 16 REQs (98.3 s)")
    void everyReplyDroppedIsUnreachableOnBothSides() {
        nodes.fabric.faults(Faults.seeded(7).drop(1.0, FrameMatch.cm(CmAttribute.REP)));
        long start = millis();
        CmId clientId = nodes.connectingClient().id;
        CmEvent request = expect(nodes.server, CmEventType.CONNECT_REQUEST);
        request.ack();
        nodes.endpoint(request.id());
        request.id().accept(param(null));
        CmEvent serverGaveUp = nodes.server.getEvent(Duration.ofSeconds(300)).orElseThrow();
        assertThat(serverGaveUp.type()).isEqualTo(CmEventType.UNREACHABLE);
        assertThat(serverGaveUp.status()).isEqualTo(-110);
        assertThat(millis() - start).isBetween(16 * 4096L, 16 * 4096L + 50);
        serverGaveUp.ack();
        CmEvent clientGaveUp = nodes.client.getEvent(Duration.ofSeconds(300)).orElseThrow();
        assertThat(clientGaveUp.type()).isEqualTo(CmEventType.UNREACHABLE);
        assertThat(millis() - start).isEqualTo(16 * 6144L);
        clientGaveUp.ack();
    }

    @Test
    @DisplayName("The first DREP dropped: the DREQ's retry finds the connection gone or in timewait and is answered with a DREP again")
    void lostDrepIsAnsweredAgain() {
        CmNodes.Connected p = nodes.connectClient();
        expectAndAck(nodes.server, CmEventType.ESTABLISHED);
        nodes.fabric.faults(Faults.seeded(7).dropNth(1, FrameMatch.cm(CmAttribute.DREP)));
        long start = millis();
        p.clientId().disconnect();
        expectAndAck(nodes.server, CmEventType.DISCONNECTED);
        p.serverId().disconnect();
        CmEvent disconnected = nodes.client.getEvent(Duration.ofSeconds(30)).orElseThrow();
        assertThat(disconnected.type()).isEqualTo(CmEventType.DISCONNECTED);
        assertThat(disconnected.status()).isZero();
        assertThat(millis() - start).isBetween(6144L, 6200L);
        disconnected.ack();
    }

    @Test
    @DisplayName("cm_destroy_id in REQ_SENT: the client gives up before the REP — REJ reason 4 (IB_CM_REJ_TIMEOUT) with the CA GUID as ARI; the server's new id sees REJECTED 4")
    void destroyingAConnectingIdRejectsWithTimeout() {
        CmId clientId = nodes.connectingClient().id;
        CmEvent request = expect(nodes.server, CmEventType.CONNECT_REQUEST);
        request.ack();
        clientId.destroyQp();
        clientId.close();
        CmEvent rejected = expect(nodes.server, CmEventType.REJECTED);
        assertThat(rejected.status()).isEqualTo(4); // ib_cm.h: IB_CM_REJ_TIMEOUT = 4 (1 is NO_QP)
        assertThat(rejected.id()).isSameAs(request.id());
        rejected.ack();
    }
    @Test
    @DisplayName("cm_rep_handler: a REP for a connection the client no longer has (its timeout REJ lost) is answered with REJ reason 6 (IB_CM_REJ_INVALID_COMM_ID); the server sees REJECTED 6")
    void replyForAForgottenConnectionIsRejectedInvalidCommId() {
        nodes.fabric.faults(Faults.seeded(7).dropNth(1, FrameMatch.cm(CmAttribute.REJ).andFrom(nodes.clientNode.mac())));
        CmId clientId = nodes.connectingClient().id;
        CmEvent request = expect(nodes.server, CmEventType.CONNECT_REQUEST);
        request.ack();
        clientId.destroyQp();
        clientId.close(); // its REJ (timeout) is dropped: the server still thinks the client waits
        CmNodes.Endpoint server = nodes.endpoint(request.id());
        request.id().accept(param(null));
        CmEvent rejected = expect(nodes.server, CmEventType.REJECTED);
        assertThat(rejected.status()).isEqualTo(6);
        rejected.ack();
        assertThat(server.qp.state()).isEqualTo(QpState.ERR);
    }
}
