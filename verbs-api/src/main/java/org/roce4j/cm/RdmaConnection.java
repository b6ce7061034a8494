package org.roce4j.cm;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Optional;
import org.roce4j.verbs.Context;
import org.roce4j.verbs.Cq;
import org.roce4j.verbs.Pd;
import org.roce4j.verbs.Qp;
import org.roce4j.verbs.QpInitAttr;
import org.roce4j.verbs.VerbsException;

/**
 * A connected RC QP with its PD and CQ, set up through rdma_cm in one blocking call, the way
 * librdmacm's synchronous mode ({@code rdma_create_ep} + {@code rdma_connect}) does it — written only
 * against {@link CmId} and {@link EventChannel}, so it runs on every backend. Each connection has an
 * event channel of its own. {@link #close()} disconnects and frees everything.
 *
 * <pre>{@code
 * try (RdmaConnection connection = RdmaConnection.connect(server, ConnectionSettings.defaults())) {
 *     Mr mr = connection.pd().regMr(buffer, EnumSet.of(AccessFlag.LOCAL_WRITE));
 *     connection.qp().postSend(SendWr.send(1, mr, 0, 64));
 * }
 * }</pre>
 */
public final class RdmaConnection implements AutoCloseable {
    /** Work done on the new QP before the REQ or REP leaves — e.g. posting the first receives. */
    @FunctionalInterface
    public interface Preparation {
        /**
         * Prepares the QP.
         *
         * @param qp the QP, in INIT
         * @param pd its protection domain
         */
        void prepare(Qp qp, Pd pd);
    }

    private final EventChannel channel;
    private final CmId id;
    private final Pd pd;
    private final Cq cq;
    private final Qp qp;
    private final Duration timeout;
    private byte[] peerPrivateData = new byte[0];
    private boolean peerDisconnected;

    private RdmaConnection(EventChannel channel, CmId id, ConnectionSettings settings, Deque<AutoCloseable> made) {
        this.channel = channel;
        this.id = id;
        this.timeout = settings.timeout();
        Context context = id.verbs().orElseThrow(() -> new VerbsException(org.roce4j.verbs.Errno.ENODEV,
                "the CM id has no device"));
        this.pd = context.allocPd();
        made.push(pd);
        this.cq = context.createCq(settings.cqDepth());
        made.push(cq);
        this.qp = id.createQp(pd, QpInitAttr.of(id.qpType(), cq, settings.cap()));
        made.push(id::destroyQp);
    }

    /**
     * {@return a connection to {@code server}, with an empty preparation}
     *
     * @param server   the listener's address and port
     * @param settings the QP, CQ and parameters
     * @throws VerbsException with librdmacm's errno: ECONNREFUSED when rejected, ETIMEDOUT when
     *         unreachable or too slow, the resolution's errno when the address cannot be resolved
     */
    public static RdmaConnection connect(InetSocketAddress server, ConnectionSettings settings) {
        return connect(RdmaCm.connectionManager(), server, settings, (qp, pd) -> { });
    }

    /**
     * {@return a connection to {@code server}: resolve the address and route, create the QP, prepare
     * it, send the REQ and wait for ESTABLISHED}
     *
     * @param cm       the connection manager to use ({@link RdmaCm#connectionManager()}, or an emulated fabric's)
     * @param server   the listener's address and port
     * @param settings the QP, CQ and parameters
     * @param prepare  what to do with the QP before the REQ leaves
     */
    public static RdmaConnection connect(ConnectionManager cm, InetSocketAddress server, ConnectionSettings settings,
                                         Preparation prepare) {
        Deque<AutoCloseable> made = new ArrayDeque<>();
        try {
            EventChannel channel = cm.createEventChannel();
            made.push(channel);
            CmId id = channel.createId(PortSpace.TCP);
            made.push(id);
            id.resolveAddr(null, server, settings.timeout());
            await(channel, "rdma_resolve_addr", CmEventType.ADDR_RESOLVED, settings.timeout());
            id.resolveRoute(settings.timeout());
            await(channel, "rdma_resolve_route", CmEventType.ROUTE_RESOLVED, settings.timeout());
            RdmaConnection connection = new RdmaConnection(channel, id, settings, made);
            prepare.prepare(connection.qp, connection.pd);
            id.connect(settings.param());
            connection.peerPrivateData = await(channel, "rdma_connect", CmEventType.ESTABLISHED, settings.timeout());
            return connection;
        } catch (RuntimeException e) {
            closeAll(made, e);
            throw e;
        }
    }

    /** The server side: a CONNECT_REQUEST's id, moved to a channel of its own, accepted. */
    static RdmaConnection accept(ConnectionManager cm, CmId child, byte[] requestData, ConnectionSettings settings,
                                 Preparation prepare) {
        Deque<AutoCloseable> made = new ArrayDeque<>();
        made.push(child);
        try {
            EventChannel channel = cm.createEventChannel();
            made.addLast(channel); // closed after the id
            child.migrate(channel);
            RdmaConnection connection = new RdmaConnection(channel, child, settings, made);
            prepare.prepare(connection.qp, connection.pd);
            child.accept(settings.param());
            await(channel, "rdma_accept", CmEventType.ESTABLISHED, settings.timeout());
            connection.peerPrivateData = requestData;
            return connection;
        } catch (RuntimeException e) {
            closeAll(made, e);
            throw e;
        }
    }

    /** {@return the connected QP (RTS)} */
    public Qp qp() {
        return qp;
    }

    /** {@return the QP's protection domain} */
    public Pd pd() {
        return pd;
    }

    /** {@return the CQ of the QP's sends and receives} */
    public Cq cq() {
        return cq;
    }

    /** {@return the CM id of the connection} */
    public CmId id() {
        return id;
    }

    /** {@return the private data the peer sent in its REQ or REP (the whole field, zero-padded, as librdmacm gives it)} */
    public byte[] peerPrivateData() {
        return peerPrivateData.clone();
    }

    /**
     * {@return whether the peer disconnected within {@code patience} (a DISCONNECTED event arrived)}
     *
     * @param patience how long to wait for it
     */
    public boolean awaitDisconnect(Duration patience) {
        if (!peerDisconnected) {
            peerDisconnected = waitFor(CmEventType.DISCONNECTED, patience);
        }
        return peerDisconnected;
    }

    /** Disconnects (or answers the peer's DREQ), waits for DISCONNECTED, then frees the QP, CQ, PD, id and channel. */
    @Override
    public void close() {
        try {
            id.disconnect();
            if (!peerDisconnected) {
                waitFor(CmEventType.DISCONNECTED, timeout);
            }
        } catch (VerbsException alreadyGone) {
            // rdma_disconnect on a connection that is already down: nothing to wait for.
        }
        Deque<AutoCloseable> parts = new ArrayDeque<>();
        parts.addLast(id::destroyQp);
        parts.addLast(cq);
        parts.addLast(pd);
        parts.addLast(id);
        parts.addLast(channel);
        closeAll(parts, null);
    }

    private boolean waitFor(CmEventType wanted, Duration patience) {
        long deadline = System.nanoTime() + patience.toNanos();
        long left;
        while ((left = deadline - System.nanoTime()) > 0) {
            Optional<CmEvent> event = channel.getEvent(Duration.ofNanos(left));
            if (event.isEmpty()) {
                return false;
            }
            try (CmEvent e = event.get()) {
                if (e.type() == wanted) {
                    return true;
                }
            }
        }
        return false;
    }

    /** The next event must be {@code expected}; {@return its private data} */
    static byte[] await(EventChannel channel, String call, CmEventType expected, Duration timeout) {
        try (CmEvent event = channel.getEvent(timeout).orElseThrow(() -> CmEventFailure.noEvent(call, expected))) {
            if (event.type() != expected) {
                throw CmEventFailure.of(call, expected, event.type(), event.status());
            }
            return event.privateData();
        }
    }

    private static void closeAll(Deque<AutoCloseable> parts, RuntimeException cause) {
        RuntimeException failure = cause;
        while (!parts.isEmpty()) {
            try {
                parts.pop().close();
            } catch (Exception e) {
                if (failure == null) {
                    failure = e instanceof RuntimeException runtime ? runtime : new IllegalStateException(e);
                } else {
                    failure.addSuppressed(e);
                }
            }
        }
        if (cause == null && failure != null) {
            throw failure;
        }
    }
}
