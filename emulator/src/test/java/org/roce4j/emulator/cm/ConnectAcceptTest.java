package org.roce4j.emulator.cm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.roce4j.emulator.cm.CmNodes.expect;
import static org.roce4j.emulator.cm.CmNodes.expectAndAck;
import static org.roce4j.emulator.cm.CmNodes.param;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.roce4j.cm.CmEvent;
import org.roce4j.cm.CmEventType;
import org.roce4j.cm.CmId;
import org.roce4j.cm.ConnParam;
import org.roce4j.verbs.QpState;
import org.roce4j.verbs.RecvWr;
import org.roce4j.verbs.SendWr;
import org.roce4j.verbs.WcStatus;
import org.roce4j.verbs.WorkCompletion;

/** rdma_connect / rdma_accept over the emulated CM: REQ → REP → RTU, private data both ways, a SEND after. */
class ConnectAcceptTest {
    private final CmNodes nodes = new CmNodes();

    @AfterEach
    void close() {
        nodes.close();
    }

    private static String text(byte[] data, int length) {
        return new String(Arrays.copyOf(data, length), StandardCharsets.US_ASCII);
    }

    @Test
    @DisplayName("IBTA 12.6: REQ/REP/RTU carry the private data both ways; both QPs reach RTS and a SEND goes through")
    void connectAcceptWithPrivateDataBothWaysThenSend() {
        CmId listener = nodes.listen(CmNodes.PORT, 8);
        CmId clientId = nodes.resolvedClient(CmNodes.PORT);
        CmNodes.Endpoint client = nodes.endpoint(clientId);
        clientId.connect(param("hello from client").withReadDepths(4, 2));

        CmEvent request = expect(nodes.server, CmEventType.CONNECT_REQUEST);
        CmId serverId = request.id();
        assertThat(request.listenId()).contains(listener);
        assertThat(text(request.privateData(), 17)).isEqualTo("hello from client");
        // The event's private data is the REQ's field less rdma_cm's 36-byte header, zero-padded (92 − 36).
        assertThat(request.privateData()).hasSize(56);
        ConnParam asked = request.conn().orElseThrow();
        assertThat(asked.responderResources()).as("the client's initiator depth, seen from the server").isEqualTo(2);
        assertThat(asked.initiatorDepth()).as("the client's responder resources").isEqualTo(4);
        assertThat(asked.qpNum()).isEqualTo(client.qp.qpNum());
        assertThat(serverId.peerAddress().getAddress()).isEqualTo(CmNodes.address("10.0.0.2"));
        assertThat(serverId.peerAddress().getPort()).isEqualTo(clientId.localAddress().getPort());
        assertThat(serverId.localAddress()).isEqualTo(CmNodes.socket("10.0.0.1", CmNodes.PORT));
        request.ack();

        CmNodes.Endpoint server = nodes.endpoint(serverId);
        server.qp.postRecv(RecvWr.of(1, server.mr, 0, 4096));
        serverId.accept(param("welcome").withReadDepths(1, 1));

        CmEvent established = expect(nodes.client, CmEventType.ESTABLISHED);
        assertThat(text(established.privateData(), 7)).isEqualTo("welcome");
        assertThat(established.privateData()).hasSize(196);
        assertThat(established.conn().orElseThrow().qpNum()).isEqualTo(server.qp.qpNum());
        established.ack();
        expectAndAck(nodes.server, CmEventType.ESTABLISHED);

        assertThat(client.qp.state()).isEqualTo(QpState.RTS);
        assertThat(server.qp.state()).isEqualTo(QpState.RTS);

        client.memory.asByteBuffer().put("ping over rdma_cm".getBytes(StandardCharsets.US_ASCII));
        client.qp.postSend(SendWr.send(2, client.mr, 0, 17));
        List<WorkCompletion> sent = client.poll();
        List<WorkCompletion> received = server.poll();
        assertThat(sent).singleElement().satisfies(wc -> assertThat(wc.status()).isEqualTo(WcStatus.SUCCESS));
        assertThat(received).singleElement().satisfies(wc -> {
            assertThat(wc.status()).isEqualTo(WcStatus.SUCCESS);
            assertThat(wc.byteLen()).isEqualTo(17);
        });
        byte[] got = new byte[17];
        server.memory.asByteBuffer().get(got);
        assertThat(new String(got, StandardCharsets.US_ASCII)).isEqualTo("ping over rdma_cm");
    }

    @Test
    @DisplayName("The threaded fabric: the event loop runs the CM; getEvent waits for the events; connect, SEND, disconnect")
    void connectOnTheThreadedFabric() {
        try (CmNodes threaded = new CmNodes(org.roce4j.emulator.fabric.Fabric.threaded())) {
            CmNodes.Connected c = threaded.connectClient();
            expectAndAck(threaded.server, CmEventType.ESTABLISHED);
            c.client().memory.asByteBuffer().put((byte) 42);
            c.client().qp.postSend(SendWr.send(2, c.client().mr, 0, 1));
            WorkCompletion received = null;
            long deadline = System.nanoTime() + 5_000_000_000L;
            while (received == null && System.nanoTime() < deadline) {
                List<WorkCompletion> some = c.server().poll();
                received = some.isEmpty() ? null : some.getFirst();
                Thread.onSpinWait();
            }
            assertThat(received).isNotNull();
            assertThat(received.status()).isEqualTo(WcStatus.SUCCESS);
            c.serverId().disconnect();
            expectAndAck(threaded.client, CmEventType.DISCONNECTED);
            c.clientId().disconnect();
            expectAndAck(threaded.server, CmEventType.DISCONNECTED);
            expectAndAck(threaded.server, CmEventType.TIMEWAIT_EXIT);
            expectAndAck(threaded.client, CmEventType.TIMEWAIT_EXIT);
        }
    }

    @Test
    @DisplayName("ib_cm_init_qp_attr: the QPs get what REQ and REP negotiated — PSNs crossed, path MTU the smaller port's, timeout 19, retry 7/7, min_rnr_timer 0, rd_atomic = min(own initiator depth, peer's responder resources)")
    void negotiatedQpAttributes() {
        try (CmNodes mixed = new CmNodes(org.roce4j.emulator.fabric.Fabric.deterministic(), org.roce4j.verbs.Mtu.MTU_4096)) {
            mixed.listen(CmNodes.PORT, 4);
            CmId clientId = mixed.resolvedClient(CmNodes.PORT);
            CmNodes.Endpoint client = mixed.endpoint(clientId);
            clientId.connect(param(null).withReadDepths(4, 8).withRetries(6, 5));
            CmEvent request = expect(mixed.server, CmEventType.CONNECT_REQUEST);
            CmId serverId = request.id();
            request.ack();
            CmNodes.Endpoint server = mixed.endpoint(serverId);
            serverId.accept(param(null).withReadDepths(2, 3).withRetries(7, 3));
            expectAndAck(mixed.client, CmEventType.ESTABLISHED);
            expectAndAck(mixed.server, CmEventType.ESTABLISHED);
            java.util.Set<org.roce4j.verbs.QpAttrMask> all = java.util.EnumSet.allOf(org.roce4j.verbs.QpAttrMask.class);
            org.roce4j.verbs.QpAttr c = client.qp.query(all);
            org.roce4j.verbs.QpAttr s = server.qp.query(all);
            assertThat(c.destQpNum()).isEqualTo(server.qp.qpNum());
            assertThat(s.destQpNum()).isEqualTo(client.qp.qpNum());
            assertThat(c.sqPsn()).isEqualTo(s.rqPsn());
            assertThat(s.sqPsn()).isEqualTo(c.rqPsn());
            // The client's port is 4096, the server's 1024: the REQ says 4096, the server takes the smaller.
            assertThat(s.pathMtu()).isEqualTo(org.roce4j.verbs.Mtu.MTU_1024);
            assertThat(List.of(c.timeout(), s.timeout())).containsOnly(19);
            assertThat(List.of(c.retryCnt(), s.retryCnt())).containsOnly(6); // the REQ's retry count, both sides
            assertThat(c.rnrRetry()).isEqualTo(3); // the REP's RNR retry count
            assertThat(s.rnrRetry()).isEqualTo(5); // the REQ's
            assertThat(List.of(c.minRnrTimer(), s.minRnrTimer())).containsOnly(0);
            assertThat(c.maxRdAtomic()).isEqualTo(2); // min(client's initiator depth 8, server's responder resources 2)
            assertThat(c.maxDestRdAtomic()).isEqualTo(4);
            assertThat(s.maxRdAtomic()).isEqualTo(3); // min(server's initiator depth 3, client's responder resources 4)
            assertThat(s.maxDestRdAtomic()).isEqualTo(2);
        }
    }
}
