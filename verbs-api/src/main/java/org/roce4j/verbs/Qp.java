package org.roce4j.verbs;

import java.util.List;
import java.util.Set;

/**
 * A queue pair: {@code struct ibv_qp}. Created in RESET, moved through the states of IBTA §10.3 with
 * {@link #modify}, given work with {@link #postSend} and {@link #postRecv}. Posts are checked
 * synchronously as libibverbs providers do: a bad work request throws
 * {@link BadWorkRequestException} and the ones after it are not posted.
 */
public interface Qp extends AutoCloseable {
    /** {@return the 24-bit QP number ({@code qp_num})} */
    int qpNum();

    /** {@return the transport service: RC, UC or UD ({@code qp_type})} */
    QpType type();

    /** {@return the protection domain the QP belongs to} */
    Pd pd();

    /** {@return the attributes the QP was created with, with the capacities actually granted} */
    QpInitAttr initAttr();

    /** {@return the current state (a query of {@link QpAttrMask#STATE})} */
    QpState state();

    /**
     * {@code ibv_modify_qp}: applies the attributes in {@code mask}. EINVAL when the transition or the
     * mask is not legal for this QP type ({@link QpTransitions}) or an attribute is out of range.
     *
     * @param attr the attributes
     * @param mask which of them to apply
     */
    void modify(QpAttr attr, Set<QpAttrMask> mask);

    /**
     * Modifies with the attributes that were set on {@code attr} ({@link QpAttr#mask()}).
     *
     * @param attr the attributes
     */
    default void modify(QpAttr attr) {
        modify(attr, attr.mask());
    }

    /**
     * {@return all attributes: {@code ibv_query_qp}}
     *
     * @param mask which attributes the caller needs (all are returned)
     */
    QpAttr query(Set<QpAttrMask> mask);

    /**
     * {@code ibv_post_send} of one work request. EINVAL when the QP is in RESET, INIT or RTR, there
     * are too many SGEs or too much inline data; ENOMEM when the send queue is full. An opcode the QP
     * type does not allow ({@link WrOpcode#isAllowedOn}) is posted, as libibverbs posts it, and
     * completes with {@code LOC_QP_OP_ERR}, the QP going to ERR.
     *
     * @param wr the request; copied, so it may be reused at once
     */
    void postSend(SendWr wr);

    /**
     * {@code ibv_post_send} of a chain, in order; stops at the first bad one
     * ({@link BadWorkRequestException} says which).
     *
     * @param wrs the requests
     */
    void postSend(List<SendWr> wrs);

    /**
     * {@code ibv_bind_mw}: binds a type 1 window by posting a BIND_MW work request with the window's rkey
     * incremented ({@link Mw#incRkey}), which is written back to the window when the post succeeds (as
     * libibverbs writes {@code mw->rkey}); the bind itself happens when the QP reaches the request, and a
     * failure completes MW_BIND_ERR (the caller must then undo nothing but the rkey it was told). EINVAL for
     * a window that is not type 1 or a range without a region, EPERM for a region of another PD
     * ({@link MwBind#checkIbvBindMw}); the post's own errors as {@link #postSend}.
     *
     * @param mw   the window (type 1)
     * @param bind wr_id, send flags, region, range and rights
     */
    default void bindMw(Mw mw, MwBind bind) {
        throw new VerbsException(Errno.EOPNOTSUPP, "ibv_bind_mw: not supported by this provider");
    }

    /**
     * {@code ibv_post_recv}. EINVAL in RESET, with an SRQ, or with too many SGEs; ENOMEM when full.
     *
     * @param wr the receive; copied, so it may be reused at once
     */
    void postRecv(RecvWr wr);

    /**
     * {@code ibv_post_recv} of a chain, in order; stops at the first bad one.
     *
     * @param wrs the receives
     */
    void postRecv(List<RecvWr> wrs);

    /**
     * {@code ibv_attach_mcast}: the UD QP receives the SENDs to multicast group {@code gid} (IBTA 11.3.1,
     * Attach QP to Multicast Group; on RoCEv2 the group is the destination IP address and the BTH DestQP
     * 0xFFFFFF). EINVAL unless the GID is a multicast address (ff00::/8, or IPv4-mapped 224.0.0.0/4) and
     * the QP is UD (core/verbs.c ib_attach_mcast); ENOMEM past the device's max_mcast_grp,
     * max_mcast_qp_attach or max_total_mcast_qp_attach (rxe_mcast.c). Attaching again is a no-op.
     *
     * @param gid the multicast group
     * @param lid the multicast LID: ignored on RoCE (IBTA A17.5.6), but an attachment is known by GID and LID
     */
    void attachMcast(Gid gid, int lid);

    /**
     * {@code ibv_detach_mcast}: undoes {@link #attachMcast}. EINVAL when the QP has no attachment with
     * this GID and LID (uverbs_cmd.c ib_uverbs_detach_mcast) or is no longer in the group (rxe_detach_mcg).
     *
     * @param gid the multicast group
     * @param lid the LID it was attached with
     */
    void detachMcast(Gid gid, int lid);

    /**
     * {@code ibv_destroy_qp}. Outstanding work is discarded without completions, as libibverbs does.
     * EBUSY while the QP is attached to a multicast group (ib_destroy_qp_user: ib_attach_mcast holds a use count).
     */
    @Override
    void close();
}
