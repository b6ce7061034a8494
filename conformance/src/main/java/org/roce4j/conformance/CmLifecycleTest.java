package org.roce4j.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.roce4j.cm.CmEventType;
import org.roce4j.cm.CmId;
import org.roce4j.cm.ConnParam;
import org.roce4j.cm.PrivateDataLimits;
import org.roce4j.verbs.Errno;

/**
 * rdma_cm beyond the happy path: disconnecting from either side (IBTA 12.6.10/12.6.11, DREQ/DREP,
 * then timewait), ids destroyed while connected, ports in use, the listen backlog, resolution of an
 * address nobody holds, and calls in the wrong state — each with the event or errno librdmacm gives.
 */
@ExtendWith(Backend.Resolver.class)
class CmLifecycleTest {
    /** Long enough for a timewait (cm.c cm_enter_timewait) or an unanswered ARP to end. */
    private static final Duration SLOW_PATIENCE = Duration.ofSeconds(20);
    /** Long enough for two rounds of REQ retries (cm.c: CMA_CM_RESPONSE_TIMEOUT 20, about 6 s each on RoCE). */
    private static final Duration BACKLOG_PATIENCE = Duration.ofSeconds(40);
    /** How long each side is waited on per turn. */
    private static final Duration STEP = Duration.ofMillis(200);

    private final Backend backend;

    CmLifecycleTest(Backend backend) {
        this.backend = backend;
    }

    /** A client and a server id with an established connection between them. */
    private record Connection(CmId client, CmId server) {
        static Connection establish(CmSide clientSide, CmSide serverSide) throws Exception {
            CmId listener = serverSide.listener(4);
            CmId client = clientSide.resolvedTowards(listener.localAddress());
            clientSide.createQp(client);
            client.connect(ConnParam.defaults());
            CmId server = serverSide.track(serverSide.await("event at the listener", CmEventType.CONNECT_REQUEST).id());
            serverSide.createQp(server);
            server.accept(ConnParam.defaults());
            clientSide.await("event at the client after rdma_accept", CmEventType.ESTABLISHED);
            serverSide.await("event at the server after the RTU", CmEventType.ESTABLISHED);
            return new Connection(client, server);
        }
    }

    @ParameterizedTest(name = "{0} disconnects")
    @ValueSource(strings = {"client", "server"})
    @DisplayName("IBTA 12.6.10/12.6.11, cma.c: rdma_disconnect from either side gives DISCONNECTED on both, then TIMEWAIT_EXIT")
    void disconnectFromEitherSide(String who) throws Exception {
        try (CmSide clientSide = CmSide.first(backend); CmSide serverSide = CmSide.second(backend)) {
            Connection connection = Connection.establish(clientSide, serverSide);
            boolean clientFirst = who.equals("client");
            (clientFirst ? connection.client() : connection.server()).disconnect();
            CmSide first = clientFirst ? clientSide : serverSide;
            CmSide peer = clientFirst ? serverSide : clientSide;
            peer.await("event at the peer after the DREQ", CmEventType.DISCONNECTED);
            (clientFirst ? connection.server() : connection.client()).disconnect(); // as rping does: answers the DREQ
            first.await("event at the disconnecting side after the DREP", CmEventType.DISCONNECTED);
            first.await("event after timewait at the disconnecting side", CmEventType.TIMEWAIT_EXIT, 0, SLOW_PATIENCE);
            peer.await("event after timewait at the peer", CmEventType.TIMEWAIT_EXIT, 0, SLOW_PATIENCE);
        }
    }

    @Test
    @DisplayName("cma.c rdma_destroy_id: destroying a connected id sends a DREQ; the peer sees DISCONNECTED")
    void destroyingAConnectedIdDisconnectsThePeer() throws Exception {
        try (CmSide clientSide = CmSide.first(backend); CmSide serverSide = CmSide.second(backend)) {
            Connection connection = Connection.establish(clientSide, serverSide);
            connection.client().destroyQp();
            connection.client().close();
            serverSide.await("event at the server after the client destroyed its id", CmEventType.DISCONNECTED);
        }
    }

    @Test
    @DisplayName("cma.c cma_alloc_port: binding a port another id holds in the same port space fails with EADDRINUSE")
    void bindToAPortInUse() throws Exception {
        try (CmSide side = CmSide.first(backend)) {
            CmId holder = side.listener(1);
            CmId second = side.id();
            Expect.errno("rdma_bind_addr to a port in use", Errno.EADDRINUSE,
                    () -> second.bindAddr(holder.localAddress()));
        }
    }

    @Test
    @DisplayName("librdmacm: rdma_resolve_route before the address is resolved, and rdma_connect before the route, fail with EINVAL")
    void callsInTheWrongStateFailWithEinval() throws Exception {
        try (CmSide side = CmSide.first(backend)) {
            CmId id = side.id();
            Expect.errno("rdma_resolve_route on a new id", Errno.EINVAL, () -> id.resolveRoute(CmSide.RESOLVE_TIMEOUT));
            Expect.errno("rdma_connect on a new id", Errno.EINVAL, () -> id.connect(ConnParam.defaults()));
        }
    }

    @Test
    @DisplayName("IBTA 12.6.5, cm.c ib_send_cm_req: more private data than the REQ holds after rdma_cm's header is EINVAL")
    void tooMuchPrivateDataIsEinval() throws Exception {
        try (CmSide clientSide = CmSide.first(backend); CmSide serverSide = CmSide.second(backend)) {
            CmId listener = serverSide.listener(1);
            CmId id = clientSide.resolvedTowards(listener.localAddress());
            clientSide.createQp(id);
            byte[] tooMuch = new byte[PrivateDataLimits.connect(id.portSpace()) + 1];
            Expect.errno("rdma_connect with " + tooMuch.length + " bytes of private data", Errno.EINVAL,
                    () -> id.connect(ConnParam.of(tooMuch)));
        }
    }

    @Test
    @DisplayName("addr.c rdma_resolve_ip: resolving an address nobody holds ends in ADDR_ERROR with a negative errno, never a hang")
    void resolvingAnAddressNobodyHoldsEndsInAddrError() throws Exception {
        try (CmSide side = CmSide.first(backend)) {
            CmId id = side.id();
            InetSocketAddress nobody = new InetSocketAddress(unusedNeighbour(side.address), 7471);
            Expect.succeeds("rdma_resolve_addr", () -> id.resolveAddr(new InetSocketAddress(side.address, 0), nobody,
                    CmSide.RESOLVE_TIMEOUT));
            CmSide.Seen seen = side.next(SLOW_PATIENCE).orElse(null);
            Expect.outcome("event after rdma_resolve_addr of " + nobody.getAddress().getHostAddress(),
                    CmEventType.ADDR_ERROR, seen == null ? "no event" : seen.type());
            assertThat(seen.status()).as("ADDR_ERROR status (a negative errno)").isNegative();
        }
    }

    @Test
    @DisplayName("ucma.c / cm.c backlog: three clients against a listener with backlog 1 that accepts what it gets each end ESTABLISHED or with a failure event — none hangs (a REQ beyond the backlog is dropped and retried)")
    void backlogOneWithThreeClients() throws Exception {
        try (CmSide clientSide = CmSide.first(backend); CmSide serverSide = CmSide.second(backend)) {
            CmId listener = serverSide.listener(1);
            for (int i = 0; i < 3; i++) {
                CmId id = clientSide.resolvedTowards(listener.localAddress());
                clientSide.createQp(id);
                id.connect(ConnParam.defaults());
            }
            // Both sides in turn, a little at a time: the server accepts each request as it comes (a
            // dropped REQ comes back with the CM's retry, seconds later), the clients collect outcomes.
            int accepted = 0;
            List<CmEventType> outcomes = new ArrayList<>();
            long deadline = System.nanoTime() + BACKLOG_PATIENCE.toNanos();
            while (outcomes.size() < 3 && System.nanoTime() < deadline) {
                Optional<CmSide.Seen> request = serverSide.next(STEP);
                if (request.isPresent() && request.get().type() == CmEventType.CONNECT_REQUEST) {
                    CmId child = serverSide.track(request.get().id());
                    serverSide.createQp(child);
                    child.accept(ConnParam.defaults());
                    accepted++;
                }
                clientSide.next(STEP).map(CmSide.Seen::type).ifPresent(outcomes::add);
            }
            assertThat(outcomes).as("each client's outcome within " + BACKLOG_PATIENCE.toSeconds() + " s").hasSize(3)
                    .allMatch(type -> type == CmEventType.ESTABLISHED || type == CmEventType.REJECTED
                            || type == CmEventType.UNREACHABLE || type == CmEventType.CONNECT_ERROR);
            assertThat(outcomes.stream().filter(type -> type == CmEventType.ESTABLISHED).count())
                    .as("established clients = requests the server accepted").isEqualTo(accepted).isPositive();
        }
    }

    /** An address in the device's /24 that no host on a test network holds (.253, or .252 beside it). */
    static InetAddress unusedNeighbour(InetAddress own) throws Exception {
        byte[] raw = own.getAddress();
        raw[raw.length - 1] = (byte) ((raw[raw.length - 1] & 0xFF) == 253 ? 252 : 253);
        return InetAddress.getByAddress(raw);
    }
}
