package org.roce4j.emulator.cm;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import org.roce4j.cm.CmEvent;
import org.roce4j.cm.CmEventType;
import org.roce4j.cm.CmId;
import org.roce4j.cm.ConnParam;
import org.roce4j.cm.EventChannel;
import org.roce4j.cm.PortSpace;
import org.roce4j.emulator.EmulatedCm;
import org.roce4j.emulator.SoftRnic;
import org.roce4j.emulator.fabric.Fabric;
import org.roce4j.verbs.AccessFlag;
import org.roce4j.verbs.Context;
import org.roce4j.verbs.Cq;
import org.roce4j.verbs.Mr;
import org.roce4j.verbs.Pd;
import org.roce4j.verbs.Qp;
import org.roce4j.verbs.QpCap;
import org.roce4j.verbs.QpInitAttr;
import org.roce4j.verbs.WorkCompletion;
import org.roce4j.wire.MacAddress;

/**
 * Two hosts on one deterministic fabric, one device each: the server 10.0.0.1 (rxe0), the client
 * 10.0.0.2 (rxe1), each with its own rdma_cm host and event channel, as two machines.
 */
final class CmNodes implements AutoCloseable {
    static final Duration WAIT = Duration.ofSeconds(5);
    static final int PORT = 7174;
    final Fabric fabric;
    final SoftRnic serverNode;
    final SoftRnic clientNode;
    final EmulatedCm serverHost;
    final EmulatedCm clientHost;
    final EventChannel server;
    final EventChannel client;
    final Arena arena = Arena.ofShared();

    CmNodes() {
        this(Fabric.deterministic());
    }

    CmNodes(Fabric fabric) {
        this(fabric, SoftRnic.DEFAULT_ACTIVE_MTU);
    }

    /** @param clientMtu the client port's active MTU (the server's is the default 1024) */
    CmNodes(Fabric fabric, org.roce4j.verbs.Mtu clientMtu) {
        this.fabric = fabric;
        serverNode = node(fabric, "rxe0", "02:00:00:00:00:01", "10.0.0.1");
        clientNode = SoftRnic.builder(fabric).name("rxe1").mac(MacAddress.parse("02:00:00:00:00:02"))
                .ipv4((Inet4Address) address("10.0.0.2")).activeMtu(clientMtu).attach();
        serverHost = EmulatedCm.of(serverNode);
        clientHost = EmulatedCm.of(clientNode);
        server = serverHost.createEventChannel();
        client = clientHost.createEventChannel();
    }

    static SoftRnic node(Fabric fabric, String name, String mac, String ip) {
        return SoftRnic.attach(fabric, name, MacAddress.parse(mac), (Inet4Address) address(ip));
    }

    static InetAddress address(String ip) {
        try {
            return InetAddress.getByName(ip);
        } catch (UnknownHostException e) {
            throw new AssertionError(e);
        }
    }

    static InetSocketAddress socket(String ip, int port) {
        return new InetSocketAddress(address(ip), port);
    }

    /** The next event on {@code channel} must be {@code type}; it is returned unacknowledged. */
    static CmEvent expect(EventChannel channel, CmEventType type) {
        CmEvent event = channel.getEvent(WAIT).orElseThrow(() -> new AssertionError("no event, expected " + type));
        assertThat(event.type()).as("event %s (status %d)", event.type(), event.status()).isEqualTo(type);
        return event;
    }

    /** Acknowledges the next event, which must be {@code type}. */
    static void expectAndAck(EventChannel channel, CmEventType type) {
        expect(channel, type).ack();
    }

    /** A listening id on the server, bound to the wildcard address and {@code port}. */
    CmId listen(int port, int backlog) {
        CmId listener = server.createId(PortSpace.TCP);
        listener.bindAddr(socket("0.0.0.0", port));
        listener.listen(backlog);
        return listener;
    }

    /** A client id with its address and route resolved to the server's {@code port}. */
    CmId resolvedClient(int port) {
        CmId id = client.createId(PortSpace.TCP);
        id.resolveAddr(null, socket("10.0.0.1", port), WAIT);
        expectAndAck(client, CmEventType.ADDR_RESOLVED);
        id.resolveRoute(WAIT);
        expectAndAck(client, CmEventType.ROUTE_RESOLVED);
        return id;
    }

    /** An {@link Endpoint} for {@code id}, its buffer from this pair's arena. */
    Endpoint endpoint(CmId id) {
        return new Endpoint(id, arena);
    }

    /** Both ends of a connection and their verbs objects. */
    record Connected(CmId clientId, CmId serverId, Endpoint client, Endpoint server) {
    }

    /**
     * Listens on {@link #PORT}, connects a client and accepts (a receive posted on the server's QP
     * first, for a SEND to come); {@return both ends} once the client is ESTABLISHED — the server's
     * ESTABLISHED is left on its channel. The request may take up to 200 virtual seconds (REQ retries).
     */
    Connected connectClient() {
        Endpoint client = connectingClient();
        CmId clientId = client.id;
        CmEvent request = server.getEvent(Duration.ofSeconds(200)).orElseThrow();
        assertThat(request.type()).isEqualTo(CmEventType.CONNECT_REQUEST);
        CmId serverId = request.id();
        request.ack();
        Endpoint serverEnd = endpoint(serverId);
        serverEnd.qp.postRecv(org.roce4j.verbs.RecvWr.of(1, serverEnd.mr, 0, 64));
        serverId.accept(param(null));
        expectAndAck(this.client, CmEventType.ESTABLISHED);
        return new Connected(clientId, serverId, client, serverEnd);
    }

    /** Listens on {@link #PORT} and starts a client's connect to it; {@return the client's id with its QP} */
    Endpoint connectingClient() {
        listen(PORT, 4);
        Endpoint client = endpoint(resolvedClient(PORT));
        client.id.connect(param(null));
        return client;
    }

    /** Verbs objects for an id's QP: PD, CQ, a registered buffer, and the QP made with rdma_create_qp. */
    static final class Endpoint {
        final CmId id;
        final Context context;
        final Pd pd;
        final Cq cq;
        final MemorySegment memory;
        final Mr mr;
        final Qp qp;

        Endpoint(CmId id, Arena arena) {
            this.id = id;
            context = id.verbs().orElseThrow();
            pd = context.allocPd();
            cq = context.createCq(64);
            memory = arena.allocate(65536, 4096);
            mr = pd.regMr(memory, EnumSet.of(AccessFlag.LOCAL_WRITE, AccessFlag.REMOTE_WRITE, AccessFlag.REMOTE_READ));
            qp = id.createQp(pd, QpInitAttr.of(id.qpType(), cq, new QpCap(16, 16, 1, 1, 0)));
        }

        List<WorkCompletion> poll() {
            List<WorkCompletion> all = new ArrayList<>();
            List<WorkCompletion> some;
            while (!(some = cq.poll(16)).isEmpty()) {
                all.addAll(some);
            }
            return all;
        }
    }

    static ConnParam param(String privateData) {
        return ConnParam.of(privateData == null ? null : privateData.getBytes(java.nio.charset.StandardCharsets.US_ASCII));
    }

    @Override
    public void close() {
        fabric.close();
        arena.close();
    }
}
