package org.roce4j.emulator.cm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.roce4j.emulator.cm.CmNodes.expect;
import static org.roce4j.emulator.cm.CmNodes.expectAndAck;
import static org.roce4j.emulator.cm.CmNodes.param;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.roce4j.cm.CmEvent;
import org.roce4j.cm.CmEventType;
import org.roce4j.cm.CmId;
import org.roce4j.cm.EventChannel;
import org.roce4j.cm.PortSpace;
import org.roce4j.emulator.fabric.Faults;
import org.roce4j.emulator.fabric.FrameMatch;
import org.roce4j.verbs.Errno;
import org.roce4j.verbs.QpState;
import org.roce4j.verbs.VerbsException;

/** What a connection attempt ends in besides ESTABLISHED, with librdmacm's events and statuses. */
class ConnectionOutcomesTest {
    private final CmNodes nodes = new CmNodes();

    @AfterEach
    void close() {
        nodes.close();
    }

    private long virtualMillis() {
        return nodes.fabric.clock().nanoTime() / 1_000_000;
    }

    @Test
    @DisplayName("rdma_reject: REJECTED with status 28 (consumer reject) and the REJ's private data; the client's QP goes to ERR")
    void rejectCarriesReason28AndPrivateData() {
        nodes.listen(CmNodes.PORT, 4);
        CmId clientId = nodes.resolvedClient(CmNodes.PORT);
        CmNodes.Endpoint client = nodes.endpoint(clientId);
        clientId.connect(param("let me in"));
        CmEvent request = expect(nodes.server, CmEventType.CONNECT_REQUEST);
        request.ack();
        request.id().reject("go away".getBytes(StandardCharsets.US_ASCII));

        CmEvent rejected = expect(nodes.client, CmEventType.REJECTED);
        assertThat(rejected.status()).isEqualTo(28);
        assertThat(new String(rejected.privateData(), 0, 7, StandardCharsets.US_ASCII)).isEqualTo("go away");
        assertThat(rejected.privateData()).hasSize(148);
        rejected.ack();
        assertThat(client.qp.state()).isEqualTo(QpState.ERR);
    }

    @Test
    @DisplayName("IBTA 12.6.7 / cm_req_handler: a REQ for a port nobody listens on is rejected, reason 8 (invalid service ID)")
    void noListenerIsRejectedWithReason8() {
        CmId clientId = nodes.resolvedClient(9999);
        nodes.endpoint(clientId);
        clientId.connect(param(null));
        CmEvent rejected = expect(nodes.client, CmEventType.REJECTED);
        assertThat(rejected.status()).isEqualTo(8);
        rejected.ack();
    }

    @Test
    @DisplayName("addr.c: an address no node owns ends in ADDR_ERROR −ETIMEDOUT after the resolution timeout, in virtual time")
    void unreachableAddressIsAnAddressErrorAfterTheTimeout() {
        CmId id = nodes.client.createId(PortSpace.TCP);
        long start = virtualMillis();
        id.resolveAddr(null, CmNodes.socket("10.0.0.99", CmNodes.PORT), Duration.ofMillis(2000));
        CmEvent error = expect(nodes.client, CmEventType.ADDR_ERROR);
        assertThat(error.status()).isEqualTo(-110);
        assertThat(virtualMillis() - start).isEqualTo(2000);
        error.ack();
        id.close();
    }

    @Test
    @DisplayName("cm.c: a REQ nobody answers is sent 1 + 15 times, 6144 ms apart, then UNREACHABLE −ETIMEDOUT (98.3 s, virtual)")
    void silentPeerIsUnreachableAfterTheRetries() {
        CmId clientId = nodes.resolvedClient(CmNodes.PORT);
        nodes.endpoint(clientId);
        // The server's node drops every frame: its CM never sees the REQs.
        nodes.fabric.faults(Faults.seeded(1).drop(1.0, FrameMatch.to(nodes.serverNode.mac())));
        long start = virtualMillis();
        clientId.connect(param(null));
        CmEvent unreachable = nodes.client.getEvent(Duration.ofSeconds(200)).orElseThrow();
        assertThat(unreachable.type()).isEqualTo(CmEventType.UNREACHABLE);
        assertThat(unreachable.status()).isEqualTo(-110);
        assertThat(virtualMillis() - start).isEqualTo(16 * 6144L);
        unreachable.ack();
    }

    @ParameterizedTest(name = "rdma_disconnect from the {0}: DISCONNECTED on both sides, then TIMEWAIT_EXIT on both")
    @ValueSource(strings = {"client", "server"})
    void disconnectFromEitherSide(String side) {
        CmNodes.Connected c = connect();
        boolean client = side.equals("client");
        CmId first = client ? c.clientId() : c.serverId();
        CmId second = client ? c.serverId() : c.clientId();
        EventChannel firstChannel = client ? nodes.client : nodes.server;
        EventChannel secondChannel = client ? nodes.server : nodes.client;
        first.disconnect();
        expectAndAck(secondChannel, CmEventType.DISCONNECTED);
        second.disconnect(); // as rping does on DISCONNECTED: the DREP goes out
        expectAndAck(firstChannel, CmEventType.DISCONNECTED);
        expectAndAck(firstChannel, CmEventType.TIMEWAIT_EXIT);
        expectAndAck(secondChannel, CmEventType.TIMEWAIT_EXIT);
    }

    @Test
    @DisplayName("cm.c: a DREQ the peer never answers is retried, then DISCONNECTED with −ETIMEDOUT")
    void unansweredDreqStillDisconnects() {
        CmNodes.Connected c = connect();
        c.clientId().disconnect();
        // The server's application does not call rdma_disconnect: no DREP ever comes.
        CmEvent disconnected = nodes.client.getEvent(Duration.ofSeconds(200)).orElseThrow();
        assertThat(disconnected.type()).isEqualTo(CmEventType.DISCONNECTED);
        assertThat(disconnected.status()).isEqualTo(-110);
        disconnected.ack();
    }

    @Test
    @DisplayName("rdma_bind_addr: a port taken in the same port space is EADDRINUSE; another port space is free")
    void portInUse() {
        CmId first = nodes.server.createId(PortSpace.TCP);
        first.bindAddr(CmNodes.socket("0.0.0.0", 5000));
        CmId second = nodes.server.createId(PortSpace.TCP);
        assertThatThrownBy(() -> second.bindAddr(CmNodes.socket("10.0.0.1", 5000)))
                .isInstanceOfSatisfying(VerbsException.class, e -> assertThat(e.errno()).isEqualTo(Errno.EADDRINUSE));
        CmId other = nodes.server.createId(PortSpace.UDP);
        other.bindAddr(CmNodes.socket("0.0.0.0", 5000));
        first.close();
        second.bindAddr(CmNodes.socket("10.0.0.1", 5000)); // free again once the first id is gone
    }

    @Test
    @DisplayName("rdma_bind_addr: an address no device has is EADDRNOTAVAIL; port 0 takes an ephemeral port in 32768–60999")
    void bindChecks() {
        CmId id = nodes.server.createId(PortSpace.TCP);
        assertThatThrownBy(() -> id.bindAddr(CmNodes.socket("10.0.0.2", 0)))
                .isInstanceOfSatisfying(VerbsException.class, e -> assertThat(e.errno()).isEqualTo(Errno.EADDRNOTAVAIL));
        id.bindAddr(CmNodes.socket("10.0.0.1", 0));
        assertThat(id.localAddress().getPort()).isBetween(32768, 60999);
        assertThat(id.verbs()).isPresent();
    }

    @Test
    @DisplayName("rdma_destroy_id with unacknowledged events is EBUSY")
    void closeWithUnackedEventsIsBusy() {
        CmId id = nodes.client.createId(PortSpace.TCP);
        id.resolveAddr(null, CmNodes.socket("10.0.0.1", CmNodes.PORT), CmNodes.WAIT);
        CmEvent resolved = expect(nodes.client, CmEventType.ADDR_RESOLVED);
        assertThatThrownBy(id::close)
                .isInstanceOfSatisfying(VerbsException.class, e -> assertThat(e.errno()).isEqualTo(Errno.EBUSY));
        resolved.ack();
        id.close();
        nodes.client.close();
    }

    @Test
    @DisplayName("cm_destroy_id: destroying a connected id sends a DREQ; the peer sees DISCONNECTED")
    void destroyingAConnectedIdDisconnectsThePeer() {
        CmNodes.Connected c = connect();
        c.clientId().destroyQp();
        c.clientId().close();
        expectAndAck(nodes.server, CmEventType.DISCONNECTED);
    }

    @Test
    @DisplayName("ucma_cleanup_ctx_events: a listener destroyed with a request not taken destroys its new id — the client is REJECTED 28")
    void closingAListenerRejectsItsPendingRequests() {
        CmId listener = nodes.listen(CmNodes.PORT, 4);
        CmId clientId = nodes.resolvedClient(CmNodes.PORT);
        nodes.endpoint(clientId);
        clientId.connect(param(null));
        nodes.fabric.runFor(Duration.ofMillis(1)); // the REQ is in, its CONNECT_REQUEST queued
        listener.close();
        assertThat(nodes.server.pollEvent()).isEmpty();
        CmEvent rejected = expect(nodes.client, CmEventType.REJECTED);
        assertThat(rejected.status()).isEqualTo(28);
        rejected.ack();
        nodes.server.close(); // nothing is left on the server's channel
    }

    @Test
    @DisplayName("librdmacm's checks: connect before ROUTE_RESOLVED and private data past the port space's limit (56 bytes for TCP) are EINVAL")
    void connectChecks() {
        CmId early = nodes.client.createId(PortSpace.TCP);
        assertThatThrownBy(() -> early.connect(param(null)))
                .isInstanceOfSatisfying(VerbsException.class, e -> assertThat(e.errno()).isEqualTo(Errno.EINVAL));
        CmId id = nodes.resolvedClient(CmNodes.PORT);
        nodes.endpoint(id);
        assertThatThrownBy(() -> id.connect(org.roce4j.cm.ConnParam.of(new byte[57])))
                .isInstanceOfSatisfying(VerbsException.class, e -> assertThat(e.errno()).isEqualTo(Errno.EINVAL));
        id.connect(org.roce4j.cm.ConnParam.of(new byte[56]));
        assertThatThrownBy(() -> id.accept(param(null)))
                .isInstanceOfSatisfying(VerbsException.class, e -> assertThat(e.errno()).isEqualTo(Errno.EINVAL));
    }

    private CmNodes.Connected connect() {
        CmNodes.Connected c = nodes.connectClient();
        expectAndAck(nodes.server, CmEventType.ESTABLISHED);
        return c;
    }
}
