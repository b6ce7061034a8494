package org.roce4j.cm;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Optional;
import org.roce4j.verbs.Context;
import org.roce4j.verbs.Pd;
import org.roce4j.verbs.Qp;
import org.roce4j.verbs.QpAttr;
import org.roce4j.verbs.QpInitAttr;
import org.roce4j.verbs.QpState;
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
     * {@code rdma_init_qp_attr}: the attributes, with their mask, that move a QP the application made
     * itself (not by {@link #createQp}) to {@code state} for this id's connection — what the CM would
     * apply to a QP of its own: {@code qp.modify(id.initQpAttributes(QpState.RTR))}. The kernel computes
     * them (cma.c {@code rdma_init_qp_attr}, cm.c {@code cm_init_qp_init_attr} / {@code _rtr_attr} /
     * {@code _rts_attr}): INIT gives the P_Key index, port and access flags (remote write, and read and
     * atomic when the connection has responder resources); RTR the address vector, path MTU, the peer's
     * QPN, {@code rq_psn}, {@code max_dest_rd_atomic} and {@code min_rnr_timer}; RTS {@code sq_psn}, the
     * ACK timeout, the retry counts and {@code max_rd_atomic}. The returned {@link QpAttr#mask()} is the
     * mask librdmacm returns, and {@link QpAttr#qpState()} is {@code state}.
     *
     * <p>As in the kernel, an RC/UC id with no connection yet (before {@link #connect}, or a UD id at
     * any time) answers with the INIT attributes ({@code cma_ib_init_qp_attr}: access flags 0; a UD id
     * the Q_Key) whatever state is asked.
     *
     * @param state the state to move the QP to: INIT, RTR or RTS
     * @return the attributes; their mask is what to modify with
     * @throws org.roce4j.verbs.VerbsException EINVAL when the id has no device, or when its connection
     *         cannot give that state yet (RTR or RTS before the REQ or the REP has arrived, any state once
     *         the connection has ended) or the state is not INIT, RTR or RTS
     */
    QpAttr initQpAttributes(QpState state);

    /**
     * {@code rdma_establish}: on an active id without a QP made by {@link #createQp}, after its
     * CONNECT_RESPONSE and after the application moved its own QP to RTS ({@link #initQpAttributes}),
     * sends the RTU. The passive side then gets ESTABLISHED; this id gets no further event, as with
     * librdmacm (its {@code rdma_establish} only writes the kernel's accept, {@code cma_rep_recv}).
     *
     * @throws org.roce4j.verbs.VerbsException EINVAL when the id has a QP from {@link #createQp}, is
     *         not connecting, or has no REP to answer (before the REP the kernel also rejects the
     *         connection: {@code cma_rep_recv} sends a REJ when {@code ib_send_cm_rtu} fails)
     */
    void establish();

    /**
     * {@code rdma_connect}: sends a REQ (a SIDR_REQ for UD). ESTABLISHED, REJECTED, UNREACHABLE or
     * CONNECT_ERROR follows; an id without a QP from {@link #createQp} (its own QP's number in
     * {@link ConnParam#qpNum}) gets CONNECT_RESPONSE instead of ESTABLISHED and answers with
     * {@link #establish}.
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

    /**
     * {@code rdma_join_multicast_ex}: joins the multicast group {@code group} (its port is only part of
     * the address {@link #leaveMulticast} must be given again). On RoCEv2 no SA is asked (cma.c
     * {@code cma_iboe_join_multicast}): the group's GID is the address ({@code cma_iboe_set_mgid}: an
     * IPv4 group {@code ::ffff:a.b.c.d}), a full member's host joins the IP group (IGMP), and
     * MULTICAST_JOIN follows at once. Its {@link CmEvent#ud()} holds the address vector to the group
     * (hop limit 64), QPN 0xFFFFFF and the id's Q_Key ({@link UdParam#RDMA_UDP_QKEY} in the UDP port
     * space); {@link CmEvent#multicastContext()} is {@code context}. When that event is read, a full
     * member's QP (if the id has one) is attached to the group; if the attach fails the event is
     * MULTICAST_ERROR with status -1 (librdmacm {@code ucma_process_join}).
     *
     * @param group   the group's address
     * @param flag    full member, or send-only full member
     * @param context what the join's events carry, or null
     * @throws org.roce4j.verbs.VerbsException EINVAL when the id has no device or is not ADDR_BOUND or
     *         ADDR_RESOLVED, when its port space is not a UD one, or for the wildcard address; ENOTSUPP
     *         (524) for an IPv6 group on a RoCEv2 port (cma.c)
     */
    void joinMulticast(InetSocketAddress group, MulticastJoinFlag flag, Object context);

    /**
     * {@code rdma_join_multicast}: {@link #joinMulticast(InetSocketAddress, MulticastJoinFlag, Object)} as
     * a full member.
     *
     * @param group   the group's address
     * @param context what the join's events carry, or null
     */
    default void joinMulticast(InetSocketAddress group, Object context) {
        joinMulticast(group, MulticastJoinFlag.FULLMEMBER, context);
    }

    /**
     * {@code rdma_join_multicast} of {@code group} with port 0.
     *
     * @param group   the group's address
     * @param context what the join's events carry, or null
     */
    default void joinMulticast(InetAddress group, Object context) {
        joinMulticast(new InetSocketAddress(group, 0), MulticastJoinFlag.FULLMEMBER, context);
    }

    /**
     * {@code rdma_leave_multicast}: detaches the id's QP from the group (a full member's) and leaves it
     * (the kernel sends the IGMP leave when the host's last member goes).
     *
     * @param group the address the group was joined with, port included (librdmacm compares the sockaddr)
     * @throws org.roce4j.verbs.VerbsException EADDRNOTAVAIL when the id has not joined that address
     */
    void leaveMulticast(InetSocketAddress group);

    /**
     * {@code rdma_leave_multicast} of {@code group} with port 0.
     *
     * @param group the group's address
     */
    default void leaveMulticast(InetAddress group) {
        leaveMulticast(new InetSocketAddress(group, 0));
    }

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
