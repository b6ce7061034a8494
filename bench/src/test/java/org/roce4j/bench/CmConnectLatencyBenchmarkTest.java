package org.roce4j.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.roce4j.cm.CmEvent;
import org.roce4j.cm.CmEventType;
import org.roce4j.cm.CmId;
import org.roce4j.cm.ConnParam;
import org.roce4j.cm.EventChannel;
import org.roce4j.cm.PortSpace;
import org.roce4j.emulator.EmulatedCm;
import org.roce4j.emulator.udp.UdpRnic;
import org.roce4j.verbs.Context;
import org.roce4j.verbs.Cq;
import org.roce4j.verbs.Pd;
import org.roce4j.verbs.QpCap;
import org.roce4j.verbs.QpInitAttr;
import org.roce4j.verbs.QpType;

/**
 * The connect-latency benchmark's states driven as JMH drives them, against an emulated rdma_cm
 * listener that behaves as {@code rping -s -P} does (accept every request, disconnect when the
 * client does) on another loopback address, and against the {@link UdpEcho} the VM runs.
 */
class CmConnectLatencyBenchmarkTest {
    private static final String SERVER = "127.0.0.91";
    private static final String CLIENT = "127.0.0.92";

    @Test
    @DisplayName("no -Droce4j.bench.cm.target: setup stops naming the property, nothing is measured")
    void aRunWithoutTargetStopsAtSetupNamingTheProperty() {
        String before = System.clearProperty(CmConnectLatencyBenchmark.TARGET_PROPERTY);
        try {
            assertThatThrownBy(() -> new CmConnectLatencyBenchmark.Connector().open())
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("-Droce4j.bench.cm.target=ADDRESS:PORT is not set");
            assertThatThrownBy(() -> new CmConnectLatencyBenchmark.EchoPeer().open())
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("-Droce4j.bench.cm.echo=ADDRESS:PORT is not set");
        } finally {
            if (before != null) {
                System.setProperty(CmConnectLatencyBenchmark.TARGET_PROPERTY, before);
            }
        }
    }

    @Test
    @DisplayName("ADDRESS:PORT and [IPV6]:PORT parse; a name, no port or port 0 is refused with the property named")
    void endpointsAreIpLiteralsWithPorts() {
        assertThat(Endpoints.parse("p", "192.168.77.2:7174")).isEqualTo(new InetSocketAddress("192.168.77.2", 7174));
        assertThat(Endpoints.parse("p", "[fe80::1]:9")).isEqualTo(new InetSocketAddress("fe80::1", 9));
        for (String bad : new String[] {"vm-a:7174", "192.168.77.2", "192.168.77.2:0", ":7174", "192.168.77.2:x"}) {
            assertThatThrownBy(() -> Endpoints.parse("p", bad)).as(bad).isInstanceOf(IllegalStateException.class)
                    .hasMessageStartingWith("p=" + bad + " is not ADDRESS:PORT");
        }
    }

    @Test
    @DisplayName("without -Droce4j.bench.cm.local the source is the address the routing table picks for the target")
    void theDefaultSourceIsTheRoutedOne() {
        assertThat(Endpoints.sourceFor(InetAddress.ofLiteral("127.0.0.91")).getHostAddress()).isEqualTo("127.0.0.1");
    }

    @Test
    @DisplayName("each invocation is one connection REQ → ESTABLISHED, then DISCONNECTED both sides; all counted")
    void eachInvocationConnectsAndDisconnectsOneConnection() throws Exception {
        try (RpingLikeListener listener = RpingLikeListener.start(true);
             CmConnections connections = CmConnections.open(listener.address(), CLIENT)) {
            for (int i = 0; i < 5; i++) {
                connections.prepare();
                assertThat(connections.connect()).isEqualTo(CmEventType.ESTABLISHED);
                connections.finish();
            }
            assertThat(connections.connected()).isEqualTo(5);
            assertThat(connections.failed()).isZero();
            assertThat(connections.tally()).endsWith(": 5 connections tried, 5 ESTABLISHED, 5 DISCONNECTED, 0 failed");
            assertThat(listener.established.get()).isEqualTo(5);
            assertThat(listener.disconnected.get()).isEqualTo(5);
        }
    }

    @Test
    @DisplayName("nobody listening: the connect fails with REJECTED 8 (invalid service ID) and is counted, not timed")
    void aConnectThatIsRejectedFailsTheBenchmark() throws Exception {
        try (RpingLikeListener listener = RpingLikeListener.start(true);
             CmConnections connections = CmConnections.open(
                     new InetSocketAddress(listener.address().getAddress(), listener.address().getPort() + 1), CLIENT)) {
            connections.prepare();
            assertThatThrownBy(connections::connect).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("connection 1 to /127.0.0.91:")
                    .hasMessageContaining("RDMA_CM_EVENT_REJECTED (status 8) where RDMA_CM_EVENT_ESTABLISHED was due")
                    .hasMessageContaining("1 connections tried, 0 ESTABLISHED, 0 DISCONNECTED, 1 failed");
            connections.finish();
            assertThat(connections.failed()).isEqualTo(1);
        }
    }

    @Test
    @DisplayName("a DREQ the listener never answers (rping -s -P after a lost RTU) is counted, and the next connection goes on")
    void anUnansweredDisconnectIsCountedNotFatal() throws Exception {
        try (RpingLikeListener listener = RpingLikeListener.start(false);
             CmConnections connections = CmConnections.open(listener.address(), CLIENT, Duration.ofSeconds(1))) {
            for (int i = 0; i < 2; i++) {
                connections.prepare();
                assertThat(connections.connect()).isEqualTo(CmEventType.ESTABLISHED);
                connections.finish();
            }
            assertThat(connections.unansweredDisconnects()).isEqualTo(2);
            assertThat(connections.tally()).endsWith(": 2 connections tried, 2 ESTABLISHED, 0 DISCONNECTED, 0 failed, "
                    + "2 disconnects unanswered within 1 s (first: connection 1)");
            assertThat(listener.disconnected.get()).isEqualTo(2);
        }
    }

    @Test
    @DisplayName("the baseline: 280-byte datagrams numbered, echoed whole; a silent echo and a closed port each stop it")
    void theEchoRoundTripChecksWhatComesBack() throws Exception {
        CmConnectLatencyBenchmark.EchoPeer peer = new CmConnectLatencyBenchmark.EchoPeer();
        try (UdpEcho echo = new UdpEcho(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))) {
            Thread server = Thread.ofPlatform().daemon().start(echo::serve);
            peer.open(echo.address());
            for (int i = 1; i <= 100; i++) {
                assertThat(peer.roundTrip()).isEqualTo(i);
            }
            echo.close();
            server.join(5_000);
            assertThat(echo.echoed()).isEqualTo(100); // counted after each send: read once the echo has stopped
            assertThatThrownBy(peer::roundTrip).isInstanceOf(IllegalStateException.class)
                    .hasMessageEndingWith(": port unreachable, nobody listens there");
        } finally {
            peer.close();
        }
        try (DatagramSocket silent = new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))) {
            CmConnectLatencyBenchmark.EchoPeer toSilent = new CmConnectLatencyBenchmark.EchoPeer();
            toSilent.open((InetSocketAddress) silent.getLocalSocketAddress());
            assertThatThrownBy(toSilent::roundTrip).isInstanceOf(IllegalStateException.class)
                    .hasMessageEndingWith(": no echo within 2000 ms");
            toSilent.close();
        }
    }

    /**
     * A listener on {@value #SERVER} that accepts every request and, when {@code answersDisconnects},
     * disconnects when its peer does (the DREP), as rping -s -P does.
     */
    static final class RpingLikeListener implements AutoCloseable {
        final AtomicInteger established = new AtomicInteger();
        final AtomicInteger disconnected = new AtomicInteger();
        private final AtomicBoolean running = new AtomicBoolean(true);
        private final UdpRnic rnic;
        private final EventChannel channel;
        private final CmId listenId;
        private final Pd pd;
        private final Cq cq;
        private final Thread loop;
        private final boolean answersDisconnects;
        private final List<CmId> unanswered = new ArrayList<>();

        private RpingLikeListener(boolean answersDisconnects) throws Exception {
            this.answersDisconnects = answersDisconnects;
            rnic = UdpRnic.open("emu-listener", SERVER);
            channel = EmulatedCm.of(rnic.rnic()).createEventChannel();
            listenId = channel.createId(PortSpace.TCP);
            listenId.bindAddr(new InetSocketAddress(rnic.address(), 0));
            listenId.listen(8);
            Context context = listenId.verbs().orElseThrow();
            pd = context.allocPd();
            cq = context.createCq(64);
            loop = Thread.ofPlatform().daemon().name("rping-like-listener").start(this::serve);
        }

        static RpingLikeListener start(boolean answersDisconnects) throws Exception {
            return new RpingLikeListener(answersDisconnects);
        }

        InetSocketAddress address() {
            return listenId.localAddress();
        }

        private void serve() {
            while (running.get()) {
                CmEvent event = channel.getEvent(Duration.ofMillis(100)).orElse(null);
                if (event == null) {
                    continue;
                }
                event.ack();
                CmId id = event.id();
                switch (event.type()) {
                    case CONNECT_REQUEST -> {
                        id.createQp(pd, QpInitAttr.of(QpType.RC, cq, QpCap.of(16, 16)));
                        id.accept(ConnParam.defaults());
                    }
                    case ESTABLISHED -> established.incrementAndGet();
                    case DISCONNECTED -> {
                        disconnected.incrementAndGet();
                        if (answersDisconnects) {
                            id.disconnect();
                            id.destroyQp();
                            id.close();
                        } else {
                            unanswered.add(id);
                        }
                    }
                    default -> { }
                }
            }
        }

        @Override
        public void close() throws Exception {
            running.set(false);
            loop.join(5_000);
            for (CmId id : unanswered) {
                id.destroyQp();
                id.close();
            }
            EmulatedRcPair.closeInOrder(cq, pd, listenId, channel, rnic);
        }
    }
}
