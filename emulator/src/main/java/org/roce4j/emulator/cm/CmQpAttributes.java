package org.roce4j.emulator.cm;

import java.util.EnumSet;
import java.util.Set;
import org.roce4j.cm.UdParam;
import org.roce4j.verbs.AccessFlag;
import org.roce4j.verbs.AhAttr;
import org.roce4j.verbs.Errno;
import org.roce4j.verbs.Mtu;
import org.roce4j.verbs.QpAttr;
import org.roce4j.verbs.QpState;
import org.roce4j.verbs.QpType;
import org.roce4j.verbs.VerbsException;

/**
 * The one computation of the attributes that move an id's QP through INIT, RTR and RTS: the
 * kernel's {@code rdma_init_qp_attr} (cma.c) and the {@code ib_cm_init_qp_attr} below it (cm.c
 * {@code cm_init_qp_init_attr}, {@code cm_init_qp_rtr_attr}, {@code cm_init_qp_rts_attr}). The CM
 * applies them to a QP of {@code rdma_create_qp}; {@code CmId.initQpAttributes} hands them to an
 * application that moves its own QP (rping {@code -q}). Called holding the id's lock.
 */
final class CmQpAttributes {
    /** cma.c: a RoCE path's hop limit (the route's TTL); it is also the REQ's primary path hop limit. */
    static final int HOP_LIMIT = 64;
    /** cma.c cma_ib_init_qp_attr: P_Key 0xFFFF on RoCE, found at index 0 of rxe's one-entry table. */
    private static final int PKEY_INDEX = 0;
    private static final int PORT = 1;

    /** cm.c cm_init_qp_init_attr: the states whose connection can give INIT (the REQ out or in, and on). */
    private static final Set<CmState> INIT_STATES = EnumSet.of(CmState.REQ_SENT, CmState.MRA_REQ_RCVD,
            CmState.REQ_RCVD, CmState.MRA_REQ_SENT, CmState.REP_RCVD, CmState.REP_SENT, CmState.MRA_REP_RCVD,
            CmState.ESTABLISHED);
    /**
     * cm.c cm_init_qp_rtr_attr / cm_init_qp_rts_attr: RTR and RTS need the peer's QPN and PSN, so the
     * REQ (passive: "allow transition to RTS before sending REP") or the REP (active) must have come.
     */
    private static final Set<CmState> RTR_RTS_STATES = EnumSet.of(CmState.REQ_RCVD, CmState.MRA_REQ_SENT,
            CmState.REP_RCVD, CmState.REP_SENT, CmState.MRA_REP_RCVD, CmState.ESTABLISHED);

    private CmQpAttributes() {
    }

    /**
     * {@return the attributes and mask for {@code state}, as {@code rdma_init_qp_attr} gives them}
     *
     * @param id    the id, its lock held
     * @param state the state asked for
     * @throws VerbsException EINVAL as ucma.c and cm.c answer
     */
    static QpAttr of(EmulatedCmId id, QpState state) {
        if (id.rnic == null) {
            // ucma_init_qp_attr → ucma_get_ctx_dev: an id with no device is EINVAL.
            throw new VerbsException(Errno.EINVAL, "rdma_init_qp_attr: the id has no device yet");
        }
        if (id.state == RdmaCmState.LISTEN) {
            // A listener's ib_cm_id is in IB_CM_LISTEN, which no cm_init_qp_*_attr accepts.
            throw new VerbsException(Errno.EINVAL, "rdma_init_qp_attr: the id is listening");
        }
        CmConnection c = id.connection;
        if (c == null || id.isUd()) {
            // cma.c rdma_init_qp_attr: no ib_cm_id yet (or UD) → cma_ib_init_qp_attr, whatever the state asked.
            return beforeConnection(id, state);
        }
        return switch (state) {
            case INIT -> init(allowed(c, state, INIT_STATES));
            case RTR -> readyToReceive(id, allowed(c, state, RTR_RTS_STATES));
            case RTS -> readyToSend(id, allowed(c, state, RTR_RTS_STATES));
            // ib_cm_init_qp_attr: any other state is -EINVAL.
            default -> throw new VerbsException(Errno.EINVAL, "rdma_init_qp_attr: no attributes for " + state);
        };
    }

    /** cma.c cma_ib_init_qp_attr: P_Key index and port; a connected QP no remote access, a UD QP the Q_Key. */
    private static QpAttr beforeConnection(EmulatedCmId id, QpState state) {
        QpAttr attr = new QpAttr().qpState(state).pkeyIndex(PKEY_INDEX).portNum(PORT);
        if (id.isUd()) {
            return attr.qkey(UdParam.RDMA_UDP_QKEY); // cma_set_qkey(id_priv, 0): RDMA_UDP_QKEY for PS_UDP and PS_IB
        }
        return attr.qpAccessFlags(EnumSet.noneOf(AccessFlag.class));
    }

    private static CmConnection allowed(CmConnection c, QpState state, Set<CmState> states) {
        if (!states.contains(c.state)) {
            throw new VerbsException(Errno.EINVAL, "rdma_init_qp_attr: the connection is " + c.state
                    + ", which cannot give " + state);
        }
        return c;
    }

    /** cm_init_qp_init_attr: remote write, and read and atomic when this side has responder resources. */
    private static QpAttr init(CmConnection c) {
        Set<AccessFlag> access = EnumSet.of(AccessFlag.REMOTE_WRITE);
        if (c.responderResources > 0) {
            access.add(AccessFlag.REMOTE_READ);
            access.add(AccessFlag.REMOTE_ATOMIC);
        }
        return new QpAttr().qpState(QpState.INIT).qpAccessFlags(access).pkeyIndex(PKEY_INDEX).portNum(PORT);
    }

    /**
     * cm_init_qp_rtr_attr: the path to the peer, its QPN, the path MTU; rq_psn is the PSN this side
     * announced (cma.c overwrites it with {@code id_priv->seq_num}, the same number); for RC the
     * responder resources as max_dest_rd_atomic and min_rnr_timer 0.
     */
    private static QpAttr readyToReceive(EmulatedCmId id, CmConnection c) {
        QpAttr attr = new QpAttr().qpState(QpState.RTR)
                .ahAttr(new AhAttr(id.remoteGid, id.sgidIndex, 0, HOP_LIMIT, 0, 0, PORT))
                .pathMtu(Mtu.of(c.pathMtu)).destQpNum(c.remoteQpn).rqPsn(id.connecting.startingPsn());
        if (id.qpType() == QpType.RC) {
            attr.maxDestRdAtomic(c.responderResources).minRnrTimer(0);
        }
        return attr;
    }

    /**
     * cm_init_qp_rts_attr: sq_psn is the peer's starting PSN (cm_req_handler: the REQ's; cm_rep_handler:
     * the REP's — rxe_rping_cm.pcap: the client's first request carries the REP's); for RC the retry
     * counts, the initiator depth as max_rd_atomic and the path's ACK timeout.
     */
    private static QpAttr readyToSend(EmulatedCmId id, CmConnection c) {
        QpAttr attr = new QpAttr().qpState(QpState.RTS).sqPsn(c.remotePsn);
        if (id.qpType() == QpType.RC) {
            attr.retryCnt(c.retryCount).rnrRetry(c.rnrRetryCount).maxRdAtomic(c.initiatorDepth)
                    .timeout(c.localAckTimeout);
        }
        return attr;
    }
}
