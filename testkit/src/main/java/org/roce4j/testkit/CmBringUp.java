package org.roce4j.testkit;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import org.roce4j.cm.CmEvent;
import org.roce4j.cm.CmEventType;
import org.roce4j.cm.CmId;
import org.roce4j.cm.ConnParam;
import org.roce4j.cm.EventChannel;
import org.roce4j.cm.PortSpace;

/**
 * An RC {@link QpPair} connected the way rping does it, in one thread: the server binds and
 * listens, the client resolves address and route, creates its QP and connects, the server takes
 * the CONNECT_REQUEST, creates its QP and accepts, and both wait for ESTABLISHED. One thread is
 * enough: on the deterministic fabric each wait for an event steps the fabric, on the threaded one
 * the peer's CM runs on the fabric's thread.
 */
final class CmBringUp {
    /** How long each rdma_cm step may take: longer than a REQ's 16 tries (98.3 s), virtual time on the deterministic fabric. */
    static final Duration PATIENCE = Duration.ofSeconds(200);

    private CmBringUp() {
    }

    static QpPair connect(QpPair.Builder settings, RdmaNode clientNode, RdmaNode serverNode) {
        List<AutoCloseable> unowned = new ArrayList<>(); // what no Side has taken yet, newest last
        QpPair.Side client = null;
        QpPair.Side server = null;
        try {
            EventChannel serverChannel = made(unowned, serverNode.connectionManager().createEventChannel());
            CmId listener = made(unowned, serverChannel.createId(PortSpace.TCP));
            listener.bindAddr(new InetSocketAddress(serverNode.address(), 0)); // an ephemeral port: pairs side by side
            listener.listen(1);
            InetSocketAddress service = new InetSocketAddress(serverNode.address(), listener.localAddress().getPort());

            EventChannel clientChannel = made(unowned, clientNode.connectionManager().createEventChannel());
            CmId clientId = made(unowned, clientChannel.createId(PortSpace.TCP));
            clientId.resolveAddr(null, service, PATIENCE);
            await(clientChannel, CmEventType.ADDR_RESOLVED, clientNode, "rdma_resolve_addr " + service);
            clientId.resolveRoute(PATIENCE);
            await(clientChannel, CmEventType.ROUTE_RESOLVED, clientNode, "rdma_resolve_route");
            client = new QpPair.Side(clientId.verbs().orElseThrow(), settings, clientId);
            client.closeLast(clientId, clientChannel);
            unowned.removeAll(List.of(clientId, clientChannel));

            ConnParam param = settings.connParam();
            clientId.connect(param);
            Optional<CmEvent> request = serverChannel.getEvent(PATIENCE);
            if (request.isEmpty()) {
                // the REQ never arrived: the client's own event says why (UNREACHABLE after the REQ's retries, …)
                await(clientChannel, CmEventType.ESTABLISHED, clientNode, "rdma_connect " + service);
            }
            CmId serverId = checked(request.orElse(null), CmEventType.CONNECT_REQUEST, serverNode, "rdma_listen " + service).id();
            made(unowned, serverId);
            server = new QpPair.Side(serverId.verbs().orElseThrow(), settings, serverId);
            server.closeLast(serverId, listener, serverChannel);
            unowned.removeAll(List.of(serverId, listener, serverChannel));
            serverId.accept(param);
            await(clientChannel, CmEventType.ESTABLISHED, clientNode, "rdma_connect " + service);
            await(serverChannel, CmEventType.ESTABLISHED, serverNode, "rdma_accept");
            client.connectedTo(server);
            server.connectedTo(client);
            return new QpPair(client, server);
        } catch (RuntimeException e) {
            List<AutoCloseable> closing = new ArrayList<>(); // the newest first
            if (server != null) {
                closing.add(server::close);
            }
            if (client != null) {
                closing.add(client::close);
            }
            closing.addAll(unowned.reversed());
            for (AutoCloseable resource : closing) {
                try {
                    resource.close();
                } catch (Exception closingFailure) {
                    e.addSuppressed(closingFailure);
                }
            }
            throw e;
        }
    }

    private static <T extends AutoCloseable> T made(List<AutoCloseable> unowned, T resource) {
        unowned.add(resource);
        return resource;
    }

    /** The next event of {@code channel}, acknowledged; {@return it} if it is {@code expected}. */
    private static CmEvent await(EventChannel channel, CmEventType expected, RdmaNode node, String step) {
        return checked(channel.getEvent(PATIENCE).orElse(null), expected, node, step);
    }

    /** Acknowledges {@code event}; {@return it} if it is {@code expected} (null: none came in time). */
    private static CmEvent checked(CmEvent event, CmEventType expected, RdmaNode node, String step) {
        if (event == null) {
            throw new IllegalStateException(step + " on " + node.name() + ": no rdma_cm event within "
                    + PATIENCE.toSeconds() + " s, expected " + expected);
        }
        event.ack();
        if (event.type() != expected) {
            throw new IllegalStateException(step + " on " + node.name() + ": " + event.type() + " (status "
                    + event.status() + "), expected " + expected);
        }
        return event;
    }
}
