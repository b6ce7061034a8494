package org.roce4j.cm;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Optional;

/**
 * A listening rdma_cm id that hands out {@link RdmaConnection}s: the server half of the blocking
 * convenience, written only against {@link CmId} and {@link EventChannel}. Each accepted connection
 * is moved to an event channel of its own ({@code rdma_migrate_id}), so its events never mix with
 * the listener's.
 *
 * <pre>{@code
 * try (RdmaServer server = RdmaServer.listen(new InetSocketAddress(address, 7471), 8, ConnectionSettings.defaults())) {
 *     while (running) {
 *         server.accept(Duration.ofSeconds(1), (qp, pd) -> qp.postRecv(...)).ifPresent(this::serve);
 *     }
 * }
 * }</pre>
 */
public final class RdmaServer implements AutoCloseable {
    private final ConnectionManager cm;
    private final EventChannel channel;
    private final CmId listener;
    private final ConnectionSettings settings;

    private RdmaServer(ConnectionManager cm, EventChannel channel, CmId listener, ConnectionSettings settings) {
        this.cm = cm;
        this.channel = channel;
        this.listener = listener;
        this.settings = settings;
    }

    /**
     * {@return a server of the selected provider's connection manager listening on {@code address}}
     *
     * @param address  the local address (the wildcard address listens on every device; port 0: an ephemeral port)
     * @param backlog  how many connection requests may wait for {@link #accept}
     * @param settings the QP, CQ and parameters of each accepted connection
     */
    public static RdmaServer listen(InetSocketAddress address, int backlog, ConnectionSettings settings) {
        return listen(RdmaCm.connectionManager(), address, backlog, settings);
    }

    /**
     * {@return a server listening on {@code address} (port 0: an ephemeral port, see {@link #localAddress()})}
     *
     * @param cm       the connection manager to use
     * @param address  the local address (the wildcard address listens on every device)
     * @param backlog  how many connection requests may wait for {@link #accept}
     * @param settings the QP, CQ and parameters of each accepted connection
     * @throws org.roce4j.verbs.VerbsException EADDRINUSE when the port is taken, as {@code rdma_bind_addr} gives it
     */
    public static RdmaServer listen(ConnectionManager cm, InetSocketAddress address, int backlog,
                                    ConnectionSettings settings) {
        EventChannel channel = cm.createEventChannel();
        CmId listener = null;
        try {
            listener = channel.createId(PortSpace.TCP);
            listener.bindAddr(address);
            listener.listen(backlog);
            return new RdmaServer(cm, channel, listener, settings);
        } catch (RuntimeException e) {
            if (listener != null) {
                listener.close();
            }
            channel.close();
            throw e;
        }
    }

    /** {@return the address and port the server listens on} */
    public InetSocketAddress localAddress() {
        return listener.localAddress();
    }

    /**
     * {@return the next connection, accepted with an empty preparation, or empty when none came within {@code patience}}
     *
     * @param patience how long to wait for a connection request
     */
    public Optional<RdmaConnection> accept(Duration patience) {
        return accept(patience, (qp, pd) -> { });
    }

    /**
     * {@return the next connection: its QP created and prepared, the REP sent, the RTU received;
     * empty when no request came within {@code patience}}
     *
     * @param patience how long to wait for a connection request
     * @param prepare  what to do with the new QP before the REP leaves (post the first receives)
     * @throws org.roce4j.verbs.VerbsException when the request could not be accepted (the client is
     *         rejected; the server goes on listening)
     */
    public Optional<RdmaConnection> accept(Duration patience, RdmaConnection.Preparation prepare) {
        Optional<CmEvent> next = channel.getEvent(patience);
        if (next.isEmpty()) {
            return Optional.empty();
        }
        CmId child;
        byte[] requestData;
        try (CmEvent event = next.get()) {
            if (event.type() != CmEventType.CONNECT_REQUEST) {
                throw CmEventFailure.of("rdma_listen", CmEventType.CONNECT_REQUEST, event.type(), event.status());
            }
            child = event.id();
            requestData = event.privateData();
        }
        return Optional.of(RdmaConnection.accept(cm, child, requestData, settings, prepare));
    }

    /** Stops listening and frees the listener and its channel; accepted connections stay up. */
    @Override
    public void close() {
        try {
            listener.close();
        } finally {
            channel.close();
        }
    }
}
