package org.roce4j.emulator.cm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.roce4j.emulator.cm.CmNodes.expect;
import static org.roce4j.emulator.cm.CmNodes.expectAndAck;
import static org.roce4j.emulator.cm.CmNodes.param;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.roce4j.cm.CmEvent;
import org.roce4j.cm.CmEventType;
import org.roce4j.cm.CmId;
import org.roce4j.cm.EventChannel;
import org.roce4j.cm.PortSpace;
import org.roce4j.emulator.EmulatedCm;
import org.roce4j.emulator.RnicCounter;
import org.roce4j.emulator.SoftRnic;
import org.roce4j.emulator.fabric.Fabric;
import org.roce4j.verbs.RecvWr;
import org.roce4j.verbs.SendWr;
import org.roce4j.verbs.WcStatus;

class BacklogAndLoopbackTest {

    @Test
    @DisplayName("ucma backlog 1, three clients: one request waits, the other REQs are dropped unanswered (cm_destroy_id −ENOMEM) and their retries connect them 6144 ms later")
    void backlogOfOneWithThreeClients() {
        try (CmNodes nodes = new CmNodes()) {
            nodes.listen(CmNodes.PORT, 1);
            List<CmId> clients = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                CmId id = nodes.resolvedClient(CmNodes.PORT);
                nodes.endpoint(id);
                clients.add(id);
            }
            long start = nodes.fabric.clock().nanoTime();
            clients.forEach(id -> id.connect(param(null)));
            nodes.fabric.runFor(Duration.ofMillis(10)); // all three REQs arrive before the server looks

            // One request waits for the server; the two others were dropped, not rejected.
            CmEvent first = nodes.server.pollEvent().orElseThrow();
            assertThat(first.type()).isEqualTo(CmEventType.CONNECT_REQUEST);
            assertThat(nodes.server.pollEvent()).isEmpty();
            assertThat(nodes.client.pollEvent()).isEmpty();
            accept(nodes, first);

            List<Long> establishedAt = new ArrayList<>();
            while (establishedAt.size() < 3) {
                CmEvent event = nodes.client.getEvent(Duration.ofMillis(50)).orElse(null);
                if (event != null) {
                    assertThat(event.type()).isEqualTo(CmEventType.ESTABLISHED);
                    establishedAt.add((nodes.fabric.clock().nanoTime() - start) / 1_000_000);
                    event.ack();
                }
                nodes.server.pollEvent().ifPresent(e -> accept(nodes, e));
                assertThat(nodes.fabric.clock().nanoTime() - start).isLessThan(Duration.ofSeconds(30).toNanos());
            }
            assertThat(establishedAt.get(0)).isLessThan(20);
            // The others come in on a retry of their REQ: 6144 ms apart (2 × 2^(18−8) + 2^(20−8) ms),
            // the first retry or — when it found the backlog full again — a later one.
            for (long at : establishedAt.subList(1, 3)) {
                assertThat(at).isGreaterThanOrEqualTo(6144L);
                assertThat(at % 6144).as("established %d ms after the REQ: on a retry", at).isLessThan(60);
            }
            // No REJ was ever sent: the dropped REQs were retried, not refused.
            assertThat(nodes.client.pollEvent()).isEmpty();
        }
    }

    private static void accept(CmNodes nodes, CmEvent event) {
        if (event.type() == CmEventType.CONNECT_REQUEST) {
            CmId serverId = event.id();
            nodes.endpoint(serverId);
            serverId.accept(param(null));
        }
        event.ack();
    }

    @Test
    @DisplayName("Loopback: a client connecting to its own device's address reaches a listener on the same device (Linux routes a local address to lo)")
    void loopbackOnOneDevice() {
        Fabric fabric = Fabric.deterministic();
        try (fabric) {
            SoftRnic only = CmNodes.node(fabric, "rxe0", "02:00:00:00:00:01", "10.0.0.1");
            EventChannel channel = EmulatedCm.of(only).createEventChannel();
            CmId listener = channel.createId(PortSpace.TCP);
            listener.bindAddr(CmNodes.socket("10.0.0.1", CmNodes.PORT));
            listener.listen(4);
            CmId clientId = channel.createId(PortSpace.TCP);
            clientId.resolveAddr(null, CmNodes.socket("10.0.0.1", CmNodes.PORT), CmNodes.WAIT);
            expectAndAck(channel, CmEventType.ADDR_RESOLVED);
            assertThat(clientId.verbs()).isEqualTo(listener.verbs());
            clientId.resolveRoute(CmNodes.WAIT);
            expectAndAck(channel, CmEventType.ROUTE_RESOLVED);
            java.lang.foreign.Arena arena = java.lang.foreign.Arena.ofConfined();
            CmNodes.Endpoint client = new CmNodes.Endpoint(clientId, arena);
            clientId.connect(param("self"));
            CmEvent request = expect(channel, CmEventType.CONNECT_REQUEST);
            CmId serverId = request.id();
            request.ack();
            CmNodes.Endpoint server = new CmNodes.Endpoint(serverId, arena);
            server.qp.postRecv(RecvWr.of(1, server.mr, 0, 64));
            serverId.accept(param(null));
            expectAndAck(channel, CmEventType.ESTABLISHED);
            expectAndAck(channel, CmEventType.ESTABLISHED);
            client.memory.asByteBuffer().put("loop".getBytes(StandardCharsets.US_ASCII));
            client.qp.postSend(SendWr.send(2, client.mr, 0, 4));
            assertThat(server.poll()).singleElement().satisfies(wc -> assertThat(wc.status()).isEqualTo(WcStatus.SUCCESS));
            assertThat(only.counter(RnicCounter.MADS_SENT)).isEqualTo(3); // REQ, REP, RTU through the node's own port
            arena.close();
        }
    }
}
