package org.roce4j.emulator.cm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.roce4j.emulator.cm.CmNodes.expect;
import static org.roce4j.emulator.cm.CmNodes.expectAndAck;
import static org.roce4j.emulator.cm.CmNodes.param;

import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.roce4j.cm.CmEvent;
import org.roce4j.cm.CmEventType;
import org.roce4j.cm.CmId;
import org.roce4j.cm.EventChannel;
import org.roce4j.cm.PortSpace;
import org.roce4j.emulator.EmulatedCm;
import org.roce4j.emulator.EmulatorProvider;
import org.roce4j.emulator.SoftRnic;
import org.roce4j.emulator.fabric.Fabric;
import org.roce4j.verbs.Errno;
import org.roce4j.verbs.VerbsException;
import org.roce4j.wire.MacAddress;

/** Which device an address picks, IPv6, the provider's default host, migrating an id, and one device per host. */
class HostsAndAddressesTest {

    private static SoftRnic dualStack(Fabric fabric, String name, String mac, String v4, String v6) {
        return SoftRnic.builder(fabric).name(name).mac(MacAddress.parse(mac))
                .ipv4((Inet4Address) CmNodes.address(v4)).ipv6((Inet6Address) CmNodes.address(v6)).attach();
    }

    @Test
    @DisplayName("IPv6: a client connects to the server's global IPv6 address; rdma_cm's header says IP version 6 and carries both addresses")
    void connectOverIpv6() {
        try (Fabric fabric = Fabric.deterministic()) {
            SoftRnic serverNode = dualStack(fabric, "rxe0", "02:00:00:00:00:01", "10.0.0.1", "fd00::1");
            SoftRnic clientNode = dualStack(fabric, "rxe1", "02:00:00:00:00:02", "10.0.0.2", "fd00::2");
            EventChannel server = EmulatedCm.of(serverNode).createEventChannel();
            EventChannel client = EmulatedCm.of(clientNode).createEventChannel();
            CmId listener = server.createId(PortSpace.TCP);
            listener.bindAddr(new InetSocketAddress(CmNodes.address("::"), 7000));
            listener.listen(2);
            CmId clientId = client.createId(PortSpace.TCP);
            clientId.resolveAddr(null, new InetSocketAddress(CmNodes.address("fd00::1"), 7000), CmNodes.WAIT);
            expectAndAck(client, CmEventType.ADDR_RESOLVED);
            assertThat(clientId.localAddress().getAddress()).isEqualTo(CmNodes.address("fd00::2"));
            clientId.resolveRoute(CmNodes.WAIT);
            expectAndAck(client, CmEventType.ROUTE_RESOLVED);
            try (java.lang.foreign.Arena arena = java.lang.foreign.Arena.ofConfined()) {
                new CmNodes.Endpoint(clientId, arena);
                clientId.connect(param("six"));
                CmEvent request = expect(server, CmEventType.CONNECT_REQUEST);
                CmId serverId = request.id();
                assertThat(serverId.peerAddress().getAddress()).isEqualTo(CmNodes.address("fd00::2"));
                assertThat(serverId.localAddress().getAddress()).isEqualTo(CmNodes.address("fd00::1"));
                assertThat(new String(request.privateData(), 0, 3, StandardCharsets.US_ASCII)).isEqualTo("six");
                request.ack();
                new CmNodes.Endpoint(serverId, arena);
                serverId.accept(param(null));
                expectAndAck(client, CmEventType.ESTABLISHED);
                expectAndAck(server, CmEventType.ESTABLISHED);
            }
        }
    }

    @Test
    @DisplayName("EmulatorProvider.createEventChannel: the default fabric's rxe0 and rxe1 are one host — rxe1 connects to rxe0's 10.0.0.1")
    void defaultProviderHost() {
        EventChannel channel = new EmulatorProvider().createEventChannel();
        assertThat(new EmulatorProvider().whyNoConnectionManager()).isEmpty();
        CmId listener = channel.createId(PortSpace.TCP);
        listener.bindAddr(CmNodes.socket("10.0.0.1", 17471));
        listener.listen(1);
        CmId clientId = channel.createId(PortSpace.TCP);
        clientId.resolveAddr(CmNodes.socket("10.0.0.2", 0), CmNodes.socket("10.0.0.1", 17471), CmNodes.WAIT);
        expectAndAck(channel, CmEventType.ADDR_RESOLVED);
        assertThat(clientId.verbs()).isPresent().isNotEqualTo(listener.verbs());
        clientId.resolveRoute(CmNodes.WAIT);
        expectAndAck(channel, CmEventType.ROUTE_RESOLVED);
        try (java.lang.foreign.Arena arena = java.lang.foreign.Arena.ofConfined()) {
            new CmNodes.Endpoint(clientId, arena);
            clientId.connect(param(null));
            CmEvent request = expect(channel, CmEventType.CONNECT_REQUEST);
            CmId serverId = request.id();
            request.ack();
            new CmNodes.Endpoint(serverId, arena);
            serverId.accept(param(null));
            expectAndAck(channel, CmEventType.ESTABLISHED);
            expectAndAck(channel, CmEventType.ESTABLISHED);
            clientId.disconnect();
            expectAndAck(channel, CmEventType.DISCONNECTED);
            serverId.disconnect();
            expectAndAck(channel, CmEventType.DISCONNECTED);
            expectAndAck(channel, CmEventType.TIMEWAIT_EXIT);
            expectAndAck(channel, CmEventType.TIMEWAIT_EXIT);
            clientId.destroyQp();
            serverId.destroyQp();
        }
        clientId.close();
        listener.close();
    }

    @Test
    @DisplayName("rdma_migrate_id: the id's later events, and those still queued, go to the new channel; the old one can then close")
    void migrateMovesEvents() {
        try (CmNodes nodes = new CmNodes()) {
            EventChannel other = nodes.clientHost.createEventChannel();
            CmId id = nodes.client.createId(PortSpace.TCP);
            id.resolveAddr(null, CmNodes.socket("10.0.0.1", CmNodes.PORT), CmNodes.WAIT);
            nodes.fabric.runFor(java.time.Duration.ZERO);
            id.migrate(other);
            assertThat(id.channel()).isSameAs(other);
            expectAndAck(other, CmEventType.ADDR_RESOLVED);
            id.resolveRoute(CmNodes.WAIT);
            expectAndAck(other, CmEventType.ROUTE_RESOLVED);
            assertThat(nodes.client.pollEvent()).isEmpty();
            nodes.client.close(); // no id is left on it
            assertThatThrownBy(other::close)
                    .isInstanceOfSatisfying(VerbsException.class, e -> assertThat(e.errno()).isEqualTo(Errno.EBUSY));
        }
    }

    @Test
    @DisplayName("A device belongs to one rdma_cm host: a second host over it is refused")
    void oneHostPerDevice() {
        try (Fabric fabric = Fabric.deterministic()) {
            SoftRnic node = CmNodes.node(fabric, "rxe0", "02:00:00:00:00:01", "10.0.0.1");
            EmulatedCm.of(node);
            assertThatThrownBy(() -> EmulatedCm.of(node)).isInstanceOf(IllegalStateException.class);
        }
    }
}
