package org.roce4j.emulator.cm;

import java.net.InetAddress;
import org.roce4j.cm.CmEventType;
import org.roce4j.cm.ConnParam;
import org.roce4j.cm.PortSpace;
import org.roce4j.cm.PrivateDataLimits;
import org.roce4j.cm.UdParam;
import org.roce4j.emulator.verbs.EmulatedQp;
import org.roce4j.verbs.AhAttr;
import org.roce4j.verbs.Errno;
import org.roce4j.verbs.Pd;
import org.roce4j.verbs.Qp;
import org.roce4j.verbs.QpAttr;
import org.roce4j.verbs.QpInitAttr;
import org.roce4j.verbs.QpState;
import org.roce4j.verbs.VerbsException;
import org.roce4j.wire.mad.CmPath;
import org.roce4j.wire.mad.CmaHeader;
import org.roce4j.wire.mad.ConnectReply;
import org.roce4j.wire.mad.ConnectRequest;
import org.roce4j.wire.mad.ServiceId;
import org.roce4j.wire.mad.SidrReply;
import org.roce4j.wire.mad.SidrRequest;
import org.roce4j.wire.mad.SidrStatus;

/**
 * An id's connection: {@code rdma_create_qp}, {@code rdma_connect}, {@code rdma_accept},
 * {@code rdma_reject}, {@code rdma_disconnect}, and what the REQ and REP negotiate, applied to the
 * QP through its normal modify path (INIT → INIT with the access flags, RTR, RTS: cma.c
 * {@code cma_modify_qp_rtr}/{@code cma_modify_qp_rts} with {@code ib_cm_init_qp_attr}'s values).
 */
final class CmIdConnecting {
    /** cma.c: a RoCE path's LIDs (the permissive LID). */
    private static final int PERMISSIVE_LID = 0xFFFF;

    private final EmulatedCmId id;

    CmIdConnecting(EmulatedCmId id) {
        this.id = id;
    }

    /** rdma_create_qp: a QP on the id's device, moved to INIT (cma_init_conn_qp / cma_init_ud_qp). */
    Qp createQp(Pd pd, QpInitAttr attr) {
        return id.locked(() -> {
            if (id.rnic == null) {
                throw new VerbsException(Errno.EINVAL, "rdma_create_qp: the id has no device yet");
            }
            if (id.qp != null) {
                throw new VerbsException(Errno.EINVAL, "rdma_create_qp: the id has a QP");
            }
            if (attr.type() != id.space.qpType()) {
                throw new VerbsException(Errno.EINVAL, "rdma_create_qp: a " + id.space + " id needs a "
                        + id.space.qpType() + " QP, not " + attr.type());
            }
            if (pd.context() != id.host.context(id.rnic)) {
                throw new VerbsException(Errno.EINVAL, "rdma_create_qp: the PD is not on the id's device context");
            }
            // librdmacm ucma_init_conn_qp / ucma_init_ud_qp: INIT with what rdma_init_qp_attr gives now.
            QpAttr init = CmQpAttributes.of(id, QpState.INIT);
            Qp qp = pd.createQp(attr);
            try {
                qp.modify(init);
                if (id.isUd()) {
                    // librdmacm ucma_init_ud_qp: a UD QP goes on to RTR and RTS (sq_psn 0) at once.
                    qp.modify(new QpAttr().qpState(QpState.RTR));
                    qp.modify(new QpAttr().qpState(QpState.RTS).sqPsn(0));
                }
            } catch (VerbsException e) {
                qp.close();
                throw e;
            }
            id.qp = qp;
            return qp;
        });
    }

    // ---- active side ------------------------------------------------------------------------

    /** rdma_connect → cma_connect_ib → ib_send_cm_req. */
    void connect(ConnParam param) {
        id.lockedRun(() -> {
            id.checkState("rdma_connect", RdmaCmState.ROUTE_RESOLVED);
            checkPrivateData("rdma_connect", param, PrivateDataLimits.connect(id.space));
            CommunicationManager cm = CommunicationManager.of(id.rnic);
            if (id.isUd()) {
                resolveService(cm, param);
                return;
            }
            int psn = startingPsn();
            CmConnection c = cm.newConnection(id.localGid, id.remoteGid);
            c.user = id;
            c.localQpn = id.qp != null ? id.qp.qpNum() : param.qpNum();
            c.startingPsn = psn;
            c.pathMtu = id.rnic.activeMtu.value();
            c.responderResources = param.responderResources();
            c.initiatorDepth = param.initiatorDepth();
            c.retryCount = param.retryCount();
            c.rnrRetryCount = param.rnrRetryCount();
            c.srq = param.srq();
            // cm_init_av_by_path: av.timeout = packet life time + 1; the REQ waits 2 × life time + the peer's response time.
            c.localAckTimeout = CmTiming.ackTimeout(CmTiming.CA_ACK_DELAY, CmTiming.IBOE_PACKET_LIFETIME);
            c.timeoutMs = CmTiming.reqTimeoutMs(CmTiming.IBOE_PACKET_LIFETIME, CmTiming.CMA_CM_RESPONSE_TIMEOUT);
            c.maxCmRetries = CmTiming.CMA_MAX_CM_RETRIES;
            id.connection = c;
            id.state = RdmaCmState.CONNECT;
            c.sendReq(request(c, param));
        });
    }

    /**
     * cma_resolve_ib_udp: a SIDR_REQ with rdma_cm's header, answered by the peer's QPN and Q_Key;
     * it waits 2^(20−8) ms per try, 1 + 15 tries.
     */
    private void resolveService(CommunicationManager cm, ConnParam param) {
        CmConnection c = cm.newConnection(id.localGid, id.remoteGid);
        c.user = id;
        c.timeoutMs = CmTiming.toMillis(CmTiming.CMA_CM_RESPONSE_TIMEOUT);
        c.maxCmRetries = CmTiming.CMA_MAX_CM_RETRIES;
        c.localAckTimeout = CmTiming.ackTimeout(CmTiming.CA_ACK_DELAY, CmTiming.IBOE_PACKET_LIFETIME);
        id.connection = c;
        id.state = RdmaCmState.CONNECT;
        Sidr.sendRequest(c, new SidrRequest(c.localId, 0xFFFF, ServiceId.of(id.space.value(), id.peer.getPort()),
                withCmaHeader(param.privateData())));
    }

    /** cma_sidr_rep_handler: ESTABLISHED with the peer's QPN and Q_Key, or UNREACHABLE with the SIDR status. */
    void sidrReplyReceived(SidrReply reply) {
        if (reply.status() != SidrStatus.SUCCESS.code()) {
            // cma_sidr_rep_handler: UNREACHABLE, the SIDR status as the event's, the reply's private data.
            id.postUd(CmEventType.UNREACHABLE, reply.status(), new UdParam(reply.privateData(),
                    AhAttr.of(id.remoteGid, id.sgidIndex, 1), 0, 0));
            return;
        }
        if (reply.qkey() != UdParam.RDMA_UDP_QKEY && id.space == PortSpace.UDP) {
            id.postUd(CmEventType.ADDR_ERROR, -Errno.EINVAL.number(), null); // cma_set_qkey
            return;
        }
        id.postUd(CmEventType.ESTABLISHED, 0, new UdParam(reply.privateData(),
                AhAttr.of(id.remoteGid, id.sgidIndex, 1), reply.qpn(), reply.qkey()));
    }

    /** cm.c cm_format_req with rdma_cm's values (cma_connect_ib), as rping's REQ in rxe_rping_cm.pcap. */
    private ConnectRequest request(CmConnection c, ConnParam param) {
        long serviceId = ServiceId.of(id.space.value(), id.peer.getPort());
        CmPath primary = new CmPath(PERMISSIVE_LID, PERMISSIVE_LID, id.localGid.raw(), id.remoteGid.raw(), 0, 0, 0,
                CmQpAttributes.HOP_LIMIT, 0, false, c.localAckTimeout);
        return new ConnectRequest(c.localId, serviceId, id.rnic.nodeGuid, 0, c.localQpn, c.responderResources, 0,
                c.initiatorDepth, 0, CmTiming.CMA_CM_RESPONSE_TIMEOUT, 0, param.flowControl() != 0, c.startingPsn,
                CmTiming.CMA_CM_RESPONSE_TIMEOUT, c.retryCount, 0xFFFF, c.pathMtu, false, c.rnrRetryCount,
                CmTiming.CMA_MAX_CM_RETRIES, c.srq, 0, primary, CmPath.NONE, withCmaHeader(param.privateData()));
    }

    /** cma_format_hdr: rdma_cm's IP header first (not in the IB port space), the consumer's data after it. */
    private byte[] withCmaHeader(byte[] consumer) {
        if (id.space == PortSpace.IB) {
            return consumer;
        }
        byte[] data = new byte[CmaHeader.LENGTH + consumer.length];
        InetAddress local = RdmaCmHost.addressOf(id.localGid);
        InetAddress remote = id.peer.getAddress();
        new CmaHeader(id.boundPort, local, remote).encode(data, 0);
        System.arraycopy(consumer, 0, data, CmaHeader.LENGTH, consumer.length);
        return data;
    }

    /**
     * cma_ib_handler IB_CM_REP_RECEIVED → cma_rep_recv: RTR, RTS, the RTU; ESTABLISHED. An id without a
     * QP of {@code rdma_create_qp} gets CONNECT_RESPONSE and sends no RTU: the application moves its own
     * QP and calls {@link #establish} (librdmacm rdma_get_cm_event: CONNECT_RESPONSE when {@code !id->qp}).
     */
    void repReceived(ConnectReply reply) {
        CmConnection c = id.connection;
        ConnParam conn = new ConnParam(reply.privateData(), reply.responderResources(), reply.initiatorDepth(),
                reply.endToEndFlowControl() ? 1 : 0, 0, reply.rnrRetryCount(), reply.srq(), reply.localQpn());
        if (id.qp == null) {
            id.post(CmEventType.CONNECT_RESPONSE, 0, conn);
            return;
        }
        try {
            bringUp();
        } catch (VerbsException e) {
            c.sendRej(CmConnection.REJ_CONSUMER_DEFINED, null);
            id.post(CmEventType.CONNECT_ERROR, -e.errno().number(), conn);
            return;
        }
        c.sendRtu();
        id.post(CmEventType.ESTABLISHED, 0, conn);
    }

    /**
     * rdma_establish: librdmacm refuses an id with a QP of its own, then writes the kernel's accept
     * without parameters (ucma_process_conn_resp), which on an id in CONNECT is cma_rep_recv:
     * ib_send_cm_rtu, and when that fails (no REP to answer) a REJ, consumer defined, and the error.
     */
    void establish() {
        id.lockedRun(() -> {
            if (id.qp != null) {
                throw new VerbsException(Errno.EINVAL, "rdma_establish: the id has a QP of rdma_create_qp");
            }
            CmConnection c = id.connection;
            if (id.state != RdmaCmState.CONNECT || c == null || id.isUd()) {
                throw new VerbsException(Errno.EINVAL, "rdma_establish: the id is " + id.state + ", not connecting");
            }
            if (c.state == CmState.REP_RCVD) {
                c.sendRtu();
                return;
            }
            c.sendRej(CmConnection.REJ_CONSUMER_DEFINED, null); // cma_rep_recv's reject: only in the REQ/REP states
            throw new VerbsException(Errno.EINVAL, "rdma_establish: the connection is " + c.state + ", not REP_RCVD");
        });
    }

    /**
     * {@return cma.c {@code id_priv->seq_num}: the first PSN this side sends, random 24 bits} Linux draws
     * it when the id is made; here it is drawn when first needed (connect, accept, or an RTR's
     * {@code rq_psn} asked before the accept), so ids that never ask draw nothing.
     */
    int startingPsn() {
        if (!id.startingPsnDrawn) {
            id.startingPsn = CommunicationManager.of(id.rnic).random.nextInt() & 0xFFFFFF;
            id.startingPsnDrawn = true;
        }
        return id.startingPsn;
    }

    // ---- passive side -----------------------------------------------------------------------

    /** rdma_accept → cma_accept_ib: the QP to RTR and RTS, then ib_send_cm_rep. */
    void accept(ConnParam param) {
        id.lockedRun(() -> {
            CmConnection c = id.connection;
            if (id.state != RdmaCmState.CONNECT || c == null || (c.state != CmState.REQ_RCVD
                    && c.state != CmState.MRA_REQ_SENT && c.state != CmState.SIDR_REQ_RCVD)) {
                throw new VerbsException(Errno.EINVAL, "rdma_accept: the id has no connection request to accept");
            }
            checkPrivateData("rdma_accept", param, PrivateDataLimits.accept(id.space));
            if (c.state == CmState.SIDR_REQ_RCVD) {
                // cma_send_sidr_rep: our QPN and rdma_cm's Q_Key; the UD side has no ESTABLISHED of its own.
                Sidr.sendReply(c, SidrStatus.SUCCESS, id.qp != null ? id.qp.qpNum() : param.qpNum(), UdParam.RDMA_UDP_QKEY,
                        param.privateData());
                return;
            }
            c.startingPsn = startingPsn();
            c.localQpn = id.qp != null ? id.qp.qpNum() : param.qpNum();
            // The peer's initiator depth was taken as our responder resources (cm_req_handler); the
            // consumer's answer caps both, and our initiator depth never exceeds the peer's resources.
            int peerResponderResources = c.initiatorDepth;
            c.responderResources = param.responderResources();
            c.initiatorDepth = Math.min(param.initiatorDepth(), peerResponderResources);
            if (id.qp != null) {
                bringUp();
                if (id.qp instanceof EmulatedQp emulated) {
                    emulated.firstRequestHook = c::rtuReceived; // IBTA communication established
                }
            }
            c.sendRep(new ConnectReply(c.localId, c.remoteId, 0, c.localQpn, 0, c.startingPsn, param.responderResources(),
                    param.initiatorDepth(), CmTiming.CA_ACK_DELAY, 0, param.flowControl() != 0, param.rnrRetryCount(),
                    param.srq(), id.rnic.nodeGuid, param.privateData()));
        });
    }

    /** rdma_reject: REJ reason 28 with the consumer's private data. */
    void reject(byte[] privateData) {
        id.lockedRun(() -> {
            CmConnection c = id.connection;
            if (c == null || (c.state != CmState.REQ_RCVD && c.state != CmState.MRA_REQ_SENT
                    && c.state != CmState.SIDR_REQ_RCVD)) {
                throw new VerbsException(Errno.EINVAL, "rdma_reject: the id has no connection request to reject");
            }
            if (c.state == CmState.SIDR_REQ_RCVD) {
                Sidr.sendReply(c, SidrStatus.REJECT, 0, 0, privateData); // cma_send_sidr_rep(IB_SIDR_REJECT)
                return;
            }
            if (privateData != null && privateData.length > PrivateDataLimits.REJ) {
                throw new VerbsException(Errno.EINVAL, "rdma_reject: " + privateData.length + " bytes of private data, at most "
                        + PrivateDataLimits.REJ);
            }
            c.sendRej(CmConnection.REJ_CONSUMER_DEFINED, privateData);
        });
    }

    /** cma_ib_handler on RTU (or the first packet): ESTABLISHED on the passive side. */
    void established() {
        if (id.qp instanceof EmulatedQp emulated) {
            emulated.firstRequestHook = null;
        }
        id.post(CmEventType.ESTABLISHED, 0, null);
    }

    /** cma_ib_handler IB_CM_REJ_RECEIVED: the QP to ERR, REJECTED with the reason as status. */
    void rejected(int reason, byte[] privateData) {
        moveQpToError();
        id.post(CmEventType.REJECTED, reason, new ConnParam(privateData, 0, 0, 0, 0, 0, false, 0));
    }

    // ---- either side --------------------------------------------------------------------------

    /**
     * rdma_disconnect: the QP to ERR; a DREQ when established, the DREP when a DREQ came. The id
     * stays in CONNECT until the DREP (or the DREQ's timeout) brings DISCONNECTED, as in cma.c.
     */
    void disconnect() {
        id.lockedRun(() -> {
            CmConnection c = id.connection;
            if (c == null) {
                throw new VerbsException(Errno.EINVAL, "rdma_disconnect: the id has no connection");
            }
            moveQpToError();
            switch (c.state) {
                case ESTABLISHED -> c.sendDreq();
                case DREQ_RCVD -> c.sendDrep();
                case REP_SENT, MRA_REP_RCVD -> {
                    // ib_send_cm_dreq refuses before the RTU; rdma_disconnect then fails as it does.
                    throw new VerbsException(Errno.EINVAL, "rdma_disconnect: the connection is not established");
                }
                default -> {
                    // disconnected already
                }
            }
        });
    }

    void moveQpToError() {
        if (id.qp != null && id.qp.state() != QpState.ERR && id.qp.state() != QpState.RESET) {
            id.qp.modify(new QpAttr().qpState(QpState.ERR));
        }
    }

    /**
     * librdmacm ucma_modify_qp_rtr / ucma_modify_qp_rts: INIT → INIT, RTR, RTS, each with what
     * rdma_init_qp_attr gives ({@link CmQpAttributes}, the values an application's own QP gets too).
     */
    private void bringUp() {
        Qp qp = id.qp;
        qp.modify(CmQpAttributes.of(id, QpState.INIT));
        qp.modify(CmQpAttributes.of(id, QpState.RTR));
        qp.modify(CmQpAttributes.of(id, QpState.RTS));
    }

    private void checkPrivateData(String verb, ConnParam param, int limit) {
        if (param.privateData().length > limit) {
            throw new VerbsException(Errno.EINVAL, verb + ": " + param.privateData().length
                    + " bytes of private data, at most " + limit + " in " + id.space);
        }
    }
}
