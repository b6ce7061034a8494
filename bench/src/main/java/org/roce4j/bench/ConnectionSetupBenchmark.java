package org.roce4j.bench;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.roce4j.cm.CmEvent;
import org.roce4j.cm.CmEventType;
import org.roce4j.cm.CmId;
import org.roce4j.cm.ConnParam;
import org.roce4j.cm.EventChannel;
import org.roce4j.cm.PortSpace;
import org.roce4j.emulator.EmulatedCm;
import org.roce4j.emulator.SoftRnic;
import org.roce4j.emulator.fabric.Fabric;
import org.roce4j.verbs.Context;
import org.roce4j.verbs.Cq;
import org.roce4j.verbs.Mtu;
import org.roce4j.verbs.Pd;
import org.roce4j.verbs.Qp;
import org.roce4j.verbs.QpCap;
import org.roce4j.verbs.QpInitAttr;
import org.roce4j.verbs.QpType;
import org.roce4j.wire.MacAddress;

/**
 * Connections set up per second in process, on the deterministic fabric (the caller's thread
 * steps it while it waits for events) and on the threaded one (the fabric's thread runs both CMs).
 *
 * <ul>
 *   <li>{@code rdmaCmConnectDisconnect}: one rdma_cm connection's whole life against one listener,
 *       as rping does it — the client resolves address and route, creates its QP and connects; the
 *       server takes the CONNECT_REQUEST, creates its QP and accepts; both see ESTABLISHED (REQ,
 *       REP, RTU on the wire); the client disconnects, the server sees DISCONNECTED and disconnects,
 *       the client sees DISCONNECTED (DREQ, DREP); both QPs and the client's id are destroyed.</li>
 *   <li>{@code verbsQpPairBringUp}, the baseline in the same run: two RC QPs created on the same
 *       two RNICs and moved RESET → INIT → RTR → RTS facing each other with the values exchanged in
 *       memory (what QpPair and ibv_rc_pingpong do), then destroyed — no frame on the fabric.</li>
 * </ul>
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class ConnectionSetupBenchmark {
    private static final Duration PATIENCE = Duration.ofSeconds(30);
    private static final int PORT = 7174;

    @State(Scope.Thread)
    public static class Hosts {
        @Param({"deterministic", "threaded"})
        public String fabricKind;

        Fabric fabric;
        EventChannel serverChannel;
        EventChannel clientChannel;
        CmId listener;
        Context serverContext;
        Context clientContext;
        Pd serverPd;
        Pd clientPd;
        Cq serverCq;
        Cq clientCq;
        InetSocketAddress service;
        CmId clientAnchor;

        @Setup(Level.Trial)
        public void start() throws Exception {
            fabric = fabricKind.equals("threaded") ? Fabric.threaded() : Fabric.deterministic();
            SoftRnic server = node("rxe0", "02:00:00:00:00:0a", "10.0.0.1");
            SoftRnic client = node("rxe1", "02:00:00:00:00:0b", "10.0.0.2");
            serverChannel = EmulatedCm.of(server).createEventChannel();
            clientChannel = EmulatedCm.of(client).createEventChannel();
            service = new InetSocketAddress(InetAddress.getByName("10.0.0.1"), PORT);
            listener = serverChannel.createId(PortSpace.TCP);
            listener.bindAddr(service); // a specific address binds the device: its CM context is the listener's
            listener.listen(16);
            serverContext = listener.verbs().orElseThrow();
            clientAnchor = clientChannel.createId(PortSpace.TCP);
            clientAnchor.bindAddr(new InetSocketAddress(InetAddress.getByName("10.0.0.2"), 0));
            clientContext = clientAnchor.verbs().orElseThrow();
            serverPd = serverContext.allocPd();
            clientPd = clientContext.allocPd();
            serverCq = serverContext.createCq(64);
            clientCq = clientContext.createCq(64);
        }

        private SoftRnic node(String name, String mac, String ipv4) throws Exception {
            return SoftRnic.builder(fabric).name(name).mac(MacAddress.parse(mac))
                    .ipv4((Inet4Address) InetAddress.getByName(ipv4)).attach();
        }

        /** Timewait (2048 ms) holds every connection for a while after it ends: let it pass between iterations. */
        @TearDown(Level.Iteration)
        public void passTimewait() throws InterruptedException {
            if (fabric.isDeterministic()) {
                fabric.runFor(Duration.ofSeconds(3));
            } else {
                Thread.sleep(2_500);
            }
        }

        @TearDown(Level.Trial)
        public void stop() {
            EmulatedRcPair.closeInOrder(serverCq, clientCq, serverPd, clientPd, clientAnchor, listener);
            fabric.close();
        }
    }

    @Benchmark
    public int rdmaCmConnectDisconnect(Hosts hosts) {
        QpInitAttr attr = QpInitAttr.of(QpType.RC, hosts.clientCq, QpCap.of(16, 16));
        CmId client = hosts.clientChannel.createId(PortSpace.TCP);
        client.resolveAddr(null, hosts.service, PATIENCE);
        expect(hosts.clientChannel, CmEventType.ADDR_RESOLVED);
        client.resolveRoute(PATIENCE);
        expect(hosts.clientChannel, CmEventType.ROUTE_RESOLVED);
        client.createQp(hosts.clientPd, attr);
        client.connect(ConnParam.defaults());
        CmId server = expect(hosts.serverChannel, CmEventType.CONNECT_REQUEST).id();
        server.createQp(hosts.serverPd, QpInitAttr.of(QpType.RC, hosts.serverCq, QpCap.of(16, 16)));
        server.accept(ConnParam.defaults());
        expect(hosts.clientChannel, CmEventType.ESTABLISHED);
        expect(hosts.serverChannel, CmEventType.ESTABLISHED);
        int qpn = client.qp().orElseThrow().qpNum();

        client.disconnect();
        expect(hosts.serverChannel, CmEventType.DISCONNECTED);
        server.disconnect(); // answers the DREQ with the DREP
        expect(hosts.clientChannel, CmEventType.DISCONNECTED);
        server.destroyQp();
        server.close();
        client.destroyQp();
        client.close();
        return qpn;
    }

    @Benchmark
    public int verbsQpPairBringUp(Hosts hosts) {
        try (Qp client = hosts.clientPd.createQp(QpInitAttr.of(QpType.RC, hosts.clientCq, QpCap.of(16, 16)));
             Qp server = hosts.serverPd.createQp(QpInitAttr.of(QpType.RC, hosts.serverCq, QpCap.of(16, 16)))) {
            EmulatedRcPair.connect(client, server, hosts.clientContext, hosts.serverContext, Mtu.MTU_1024);
            return client.qpNum() ^ server.qpNum();
        }
    }

    private static CmEvent expect(EventChannel channel, CmEventType type) {
        CmEvent event = channel.getEvent(PATIENCE).orElseThrow(() -> new IllegalStateException("no rdma_cm event, expected " + type));
        event.ack();
        if (event.type() != type) {
            throw new IllegalStateException(event.type() + " (status " + event.status() + "), expected " + type);
        }
        return event;
    }
}
