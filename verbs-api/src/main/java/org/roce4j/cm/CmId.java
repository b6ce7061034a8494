package org.roce4j.cm;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Optional;
import org.roce4j.verbs.Context;
import org.roce4j.verbs.Pd;
import org.roce4j.verbs.Qp;
import org.roce4j.verbs.QpInitAttr;
import org.roce4j.verbs.QpType;

/**
 * An rdma_cm identifier: {@code struct rdma_cm_id}, the socket of RDMA. A client resolves an
 * address and a route, creates its QP and connects; a server binds, listens and accepts the ids
 * that CONNECT_REQUEST events bring. The CM moves the id's QP through INIT, RTR and RTS with the
 * attributes the REQ and REP negotiate. Calls that only start something ({@link #resolveAddr},
 * {@link #resolveRoute}, {@link #connect}, {@link #disconnect}) return at once; the outcome arrives
 * as an event on the id's {@link #channel()}. An invalid call throws
 * {@link org.roce4j.verbs.VerbsException} with the errno librdmacm gives (EINVAL for a call in the
 * wrong state, EADDRINUSE for a port already bound, …).
 */
public interface CmId extends AutoCloseable {
    /** {@return the channel the id's events go to} */
    EventChannel channel();

    /** {@return the port space the id was created in} */
    PortSpace portSpace();

    /** {@return the QP type the id connects ({@code id->qp_type})} */
    default QpType qpType() {
        return portSpace().qpType();
    }

    /** {@return what the application passed to {@code createId}, or null} */
    Object context();

    /**
     * {@code rdma_bind_addr}: takes a local address and port (port 0: an ephemeral one). A specific
     * address binds the id to the device that owns it; the wildcard address binds no device yet.
     *
     * @param address the local address
     * @throws org.roce4j.verbs.VerbsException EADDRINUSE when the port is taken in this port space,
     *         EADDRNOTAVAIL or ENODEV when no RDMA device has the address, EINVAL when the id is bound already
     */
    void bindAddr(InetSocketAddress address);

    /**
     * {@code rdma_resolve_addr}: finds the local device that reaches {@code destination} (binding the
     * id if it is not) and the peer's hardware address. ADDR_RESOLVED or ADDR_ERROR follows.
     *
     * @param source      the local address to use, or null to let the routing table pick
     * @param destination the peer's address and port
     * @param timeout     how long resolution may take
     */
    void resolveAddr(InetSocketAddress source, InetSocketAddress destination, Duration timeout);

    /**
     * {@code rdma_resolve_route}: the path to the resolved peer (on RoCE: GIDs, MTU, hop limit from
     * the local routing). ROUTE_RESOLVED or ROUTE_ERROR follows.
     *
     * @param timeout how long resolution may take
     * @throws org.roce4j.verbs.VerbsException EINVAL before ADDR_RESOLVED
     */
    void resolveRoute(Duration timeout);

    /**
     * {@code rdma_listen}: CONNECT_REQUEST events for connections to the bound address follow (an
     * unbound id binds to the wildcard address and an ephemeral port first).
     *
     * @param backlog how many requests may wait for the application; more are rejected
     */
    void listen(int backlog);

    /**
     * {@return a QP on the id's device, moved to INIT by the CM: {@code rdma_create_qp}}
     *
     * @param pd   a protection domain on {@link #verbs()}
     * @param attr the QP's attributes; its type must be the id's
     * @throws org.roce4j.verbs.VerbsException EINVAL before the id has a device or when it has a QP
     */
    Qp createQp(Pd pd, QpInitAttr attr);

    /** {@code rdma_destroy_qp}: destroys the id's QP, if it has one. */
    void destroyQp();

    /** {@return the QP made by {@link #createQp}, if any} */
    Optional<Qp> qp();

    /**
     * {@code rdma_connect}: sends a REQ (a SIDR_REQ for UD). ESTABLISHED (or CONNECT_RESPONSE without
     * a QP), REJECTED, UNREACHABLE or CONNECT_ERROR follows.
     *
     * @param param what to announce; its private data at most {@link PrivateDataLimits#connect}
     * @throws org.roce4j.verbs.VerbsException EINVAL before ROUTE_RESOLVED or with too much private data
     */
    void connect(ConnParam param);

    /**
     * {@code rdma_accept} on the id of a CONNECT_REQUEST: sends the REP (the SIDR_REP for UD);
     * ESTABLISHED follows when the RTU arrives.
     *
     * @param param what to answer; its private data at most {@link PrivateDataLimits#accept}
     */
    void accept(ConnParam param);

    /**
     * {@code rdma_reject}: answers a CONNECT_REQUEST with a REJ, reason 28 (consumer reject), carrying
     * this private data (at most {@link PrivateDataLimits#REJ} bytes).
     *
     * @param privateData the private data, or null
     */
    void reject(byte[] privateData);

    /** {@code rdma_disconnect}: sends a DREQ (or answers one); DISCONNECTED follows on both sides. */
    void disconnect();

    /**
     * {@code rdma_migrate_id}: from now on the id's events go to {@code channel}.
     *
     * @param channel the new channel
     */
    void migrate(EventChannel channel);

    /** {@return the local address and port ({@code rdma_get_local_addr}, {@code rdma_get_src_port})} */
    InetSocketAddress localAddress();

    /** {@return the peer's address and port ({@code rdma_get_peer_addr}, {@code rdma_get_dst_port}); null before resolution} */
    InetSocketAddress peerAddress();

    /** {@return the device context the id is bound to ({@code id->verbs}); the CM owns it — do not close it} */
    Optional<Context> verbs();

    /** {@return the port number on {@link #verbs()} ({@code id->port_num}), 0 while unbound} */
    int portNum();

    /**
     * {@code rdma_destroy_id}: leaves the connection (a connected id sends a DREQ) and frees the id.
     *
     * The id's QP is not destroyed: call {@link #destroyQp} first, as with librdmacm.
     *
     * @throws org.roce4j.verbs.VerbsException EBUSY while events of this id are unacknowledged
     *         (librdmacm blocks there until they are)
     */
    @Override
    void close();
}
