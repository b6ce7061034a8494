package org.roce4j.testkit;

import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.roce4j.testkit.RoceAssertions.assertThat;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.EnumSet;

import org.junit.jupiter.api.Test;
import org.roce4j.cm.CmEvent;
import org.roce4j.cm.CmEventType;
import org.roce4j.cm.CmId;
import org.roce4j.cm.ConnParam;
import org.roce4j.cm.EventChannel;
import org.roce4j.cm.PortSpace;
import org.roce4j.emulator.EmulatedCm;
import org.roce4j.emulator.fabric.FrameMatch;
import org.roce4j.emulator.fabric.Faults;
import org.roce4j.verbs.AccessFlag;
import org.roce4j.verbs.Context;
import org.roce4j.verbs.Cq;
import org.roce4j.verbs.Mr;
import org.roce4j.verbs.Pd;
import org.roce4j.verbs.QpCap;
import org.roce4j.verbs.QpInitAttr;
import org.roce4j.verbs.QpState;
import org.roce4j.verbs.QpType;
import org.roce4j.verbs.RecvWr;
import org.roce4j.verbs.SendWr;
import org.roce4j.verbs.WcStatus;
import org.roce4j.wire.mad.CmAttribute;

/** rdma_cm in the testkit: each node its own host, QpPair through the CM, fault schedules aimed at CM MADs. */
class ConnectionManagerTest {
    private static final Duration WAIT = Duration.ofSeconds(5);

    /** Every RTU lost: IBTA's communication established must stand in for it on the passive side. */
    public static final class DropEveryRtu implements FaultSchedule {
        @Override
        public Faults addTo(Faults plan) {
            return plan.drop(1.0, FrameMatch.cm(CmAttribute.RTU));
        }
    }

    /** Every REQ lost: the client's CM gives up after its retries. */
    public static final class DropEveryReq implements FaultSchedule {
        @Override
        public Faults addTo(Faults plan) {
            return plan.drop(1.0, FrameMatch.cm(CmAttribute.REQ));
        }
    }

    // ---- 1a: a node is a host ---------------------------------------------------------------

    @Test
    @EmulatedFabric
    void eachNodeIsOneHostWhoseConnectionManagerIsMadeOnce(RdmaNode a, RdmaNode b) {
        EmulatedCm cm = a.connectionManager();
        assertThat(a.connectionManager()).isSameAs(cm);
        assertThat(b.connectionManager()).isNotSameAs(cm);
        assertThatThrownBy(() -> EmulatedCm.of(a.rnic())).as("the RNIC belongs to the node's host")
                .isInstanceOf(IllegalStateException.class);
    }

    @Test
    @EmulatedFabric
    void aClientOnOneNodeConnectsToAListenerOnTheOtherOverTheTestsFabric(TestFabric fabric, RdmaNode a, RdmaNode b) {
        Connection connection = new Connection(a, b, false);
        assertThat(connection.clientId.peerAddress()).isEqualTo(connection.service);
        assertThat(fabric.fabric().counters().framesDelivered()).as("REQ, REP and RTU crossed the fabric").isGreaterThanOrEqualTo(3);
        assertThat(b.connectionManager().footprint().connections()).isPositive();
        connection.close();
    }

    // ---- 1b: QpPair through rdma_cm --------------------------------------------------------

    @Test
    @EmulatedFabric
    void anRcPairConnectedThroughRdmaCmHasBothQpsInRtsFacingEachOtherAndCarriesAWrite(RdmaNode a, RdmaNode b) {
        writeAndSendThroughCm(QpPair.rcThroughCm(a, b));
    }

    @Test
    @EmulatedFabric(link = Link.THREADED)
    void anRcPairConnectsThroughRdmaCmOnTheThreadedFabricToo(RdmaNode a, RdmaNode b) {
        writeAndSendThroughCm(QpPair.rcThroughCm(a, b));
    }

    private static void writeAndSendThroughCm(QpPair pair) {
        assertThat(pair.a().qp()).isInState(QpState.RTS);
        assertThat(pair.b().qp()).isInState(QpState.RTS);
        assertThat(pair.a().peerQpNum()).isEqualTo(pair.b().qp().qpNum());
        assertThat(pair.b().peerQpNum()).isEqualTo(pair.a().qp().qpNum());
        assertThat(pair.a().cmId()).isPresent();
        assertThat(pair.a().context()).isSameAs(pair.a().cmId().orElseThrow().verbs().orElseThrow());

        pair.a().buffer().asSlice(0, 4).copyFrom(java.lang.foreign.MemorySegment.ofArray(new byte[] {1, 2, 3, 4}));
        pair.a().qp().postSend(SendWr.rdmaWrite(1, pair.a().mr(), 0, 4, pair.a().peerAddress() + 64, pair.a().peerRkey()));
        assertThat(pair.a().cq()).hasCompletions(WcStatus.SUCCESS);
        assertThat(pair.b().buffer()).hasBytesAt(64, (byte) 1, (byte) 2, (byte) 3, (byte) 4);
    }

    @Test
    @EmulatedFabric
    void closingAPairConnectedThroughRdmaCmLeavesNoConnectionOrPortOnceTimewaitEnds(TestFabric fabric, RdmaNode a,
                                                                                  RdmaNode b) {
        QpPair pair = QpPair.rcThroughCm(a, b);
        assertThat(b.connectionManager().footprint().boundPorts()).isEqualTo(1);
        pair.close();
        fabric.fabric().runFor(Duration.ofSeconds(10)); // DREQ/DREP, then 2048 ms of timewait
        assertThat(a.connectionManager().footprint()).extracting("connections", "timers", "boundPorts")
                .containsExactly(0, 0, 0);
        assertThat(b.connectionManager().footprint()).extracting("connections", "timers", "boundPorts")
                .containsExactly(0, 0, 0);
    }

    @Test
    @EmulatedFabric
    void rdmaCmConnectsRcOnlyInTheTestkit(RdmaNode a, RdmaNode b) {
        assertThatThrownBy(() -> QpPair.builder(QpType.UD).connectThroughCm(a, b))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("UD");
    }

    // ---- 1d: fault schedules aimed at CM MADs ------------------------------------------------

    @Test
    @EmulatedFabric(faults = DropEveryRtu.class)
    void everyRtuDroppedThePassiveSideIsEstablishedByTheFirstDataPacket(TestFabric fabric, RdmaNode a, RdmaNode b) {
        Connection connection = new Connection(a, b, true);
        fabric.fabric().runFor(Duration.ofSeconds(1));
        assertThat(connection.serverChannel.pollEvent()).as("no RTU: the server is not ESTABLISHED yet").isEmpty();

        connection.client.qp().postSend(SendWr.send(1, connection.client.mr(), 0, 16));
        try (CmEvent established = connection.serverChannel.getEvent(WAIT).orElseThrow()) {
            assertThat(established.type()).isEqualTo(CmEventType.ESTABLISHED);
        }
        assertThat(connection.server.cq()).hasCompletions(WcStatus.SUCCESS);
        assertThat(fabric.fabric().faultCounters().dropped()).as("the RTU").isEqualTo(1);
        connection.close();
    }

    @Test
    @EmulatedFabric(faults = DropEveryReq.class)
    void everyReqDroppedTheClientIsUnreachableWithEtimedoutAfterTheCmsRetries(TestFabric fabric, RdmaNode a,
                                                                             RdmaNode b) {
        long start = fabric.fabric().clock().nanoTime();
        assertThatThrownBy(() -> QpPair.rcThroughCm(a, b)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("rdma_connect").hasMessageContaining("UNREACHABLE (status -110)");
        // cm.c: 1 + 15 REQs, 6144 ms apart (CMA_CM_RESPONSE_TIMEOUT 20, packet life time 18)
        assertThat(fabric.fabric().faultCounters().dropped()).isEqualTo(16);
        assertThat(fabric.fabric().clock().nanoTime() - start).isGreaterThanOrEqualTo(98_304_000_000L);
        assertThat(a.connectionManager().footprint().boundPorts()).as("the failed bring-up closed its ids").isZero();
        assertThat(b.connectionManager().footprint().boundPorts()).isZero();
    }

    /**
     * rping's steps by hand, for what QpPair does not do: a server QP with a receive posted, and the
     * choice not to wait for the server's ESTABLISHED.
     */
    private static final class Connection {
        final EventChannel serverChannel;
        final EventChannel clientChannel;
        final CmId listener;
        final CmId clientId;
        final InetSocketAddress service;
        final Endpoint client;
        final Endpoint server;
        final CmId serverId;

        Connection(RdmaNode clientNode, RdmaNode serverNode, boolean leaveServerEstablished) {
            serverChannel = serverNode.connectionManager().createEventChannel();
            listener = serverChannel.createId(PortSpace.TCP);
            listener.bindAddr(new InetSocketAddress(serverNode.address(), 7174));
            listener.listen(1);
            service = listener.localAddress();
            clientChannel = clientNode.connectionManager().createEventChannel();
            clientId = clientChannel.createId(PortSpace.TCP);
            clientId.resolveAddr(null, service, WAIT);
            expect(clientChannel, CmEventType.ADDR_RESOLVED);
            clientId.resolveRoute(WAIT);
            expect(clientChannel, CmEventType.ROUTE_RESOLVED);
            client = new Endpoint(clientId);
            clientId.connect(ConnParam.defaults());
            serverId = expect(serverChannel, CmEventType.CONNECT_REQUEST).id();
            server = new Endpoint(serverId);
            server.qp().postRecv(RecvWr.of(1, server.mr(), 0, 64));
            serverId.accept(ConnParam.defaults());
            expect(clientChannel, CmEventType.ESTABLISHED);
            if (!leaveServerEstablished) {
                expect(serverChannel, CmEventType.ESTABLISHED);
            }
        }

        private static CmEvent expect(EventChannel channel, CmEventType type) {
            try (CmEvent event = channel.getEvent(WAIT).orElseThrow(() -> new AssertionError("no event, expected " + type))) {
                assertThat(event.type()).as("status %d", event.status()).isEqualTo(type);
                return event;
            }
        }

        void close() {
            server.close();
            client.close();
            serverId.close();
            clientId.close();
            listener.close();
            serverChannel.close();
            clientChannel.close();
        }
    }

    /** A QP made by rdma_create_qp on the id's own context, with a PD, a CQ and a 4 KiB buffer. */
    private static final class Endpoint {
        private final CmId id;
        private final Pd pd;
        private final Cq cq;
        private final Mr mr;

        Endpoint(CmId id) {
            Context context = id.verbs().orElseThrow();
            this.id = id;
            pd = context.allocPd();
            cq = context.createCq(16);
            mr = pd.regMr(java.lang.foreign.Arena.ofAuto().allocate(4096), EnumSet.of(AccessFlag.LOCAL_WRITE));
            id.createQp(pd, QpInitAttr.of(QpType.RC, cq, QpCap.of(8, 8)));
        }

        org.roce4j.verbs.Qp qp() {
            return id.qp().orElseThrow();
        }

        Cq cq() {
            return cq;
        }

        Mr mr() {
            return mr;
        }

        void close() {
            id.destroyQp();
            mr.close();
            cq.close();
            pd.close();
        }
    }
}
