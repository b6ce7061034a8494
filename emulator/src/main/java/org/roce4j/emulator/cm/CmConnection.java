package org.roce4j.emulator.cm;

import org.roce4j.emulator.node.NetworkPath;
import org.roce4j.verbs.Gid;
import org.roce4j.wire.mad.CmAttribute;
import org.roce4j.wire.mad.CmMessage;
import org.roce4j.wire.mad.ConnectReject;
import org.roce4j.wire.mad.ConnectReply;
import org.roce4j.wire.mad.ConnectRequest;
import org.roce4j.wire.mad.DisconnectReply;
import org.roce4j.wire.mad.DisconnectRequest;
import org.roce4j.wire.mad.MessageReceiptAck;
import org.roce4j.wire.mad.ReadyToUse;
import org.roce4j.wire.mad.RejectReason;
import org.roce4j.wire.mad.SidrStatus;

/**
 * One connection of the communication manager: Linux's {@code struct cm_id_private} and the
 * transitions of IBTA 12.9 as {@code cm.c} makes them. It sends its MADs through the node's
 * {@link CommunicationManager}, retries the ones that wait for an answer (REQ, REP, DREQ) every
 * {@link #timeoutMs} up to {@link #maxCmRetries} times, and tells its {@link CmUser} (the rdma_cm
 * id) what happened. Called under the fabric lock only.
 */
final class CmConnection {
    /**
     * The {@code IB_CM_REJ_*} reasons this CM sends (ib_cm.h {@code enum ib_cm_rej_reason}, IBTA
     * table 109), from the one table of them: TIMEOUT is 4 and INVALID_COMM_ID 6 on the wire.
     */
    static final int REJ_TIMEOUT = RejectReason.TIMEOUT.code();
    static final int REJ_INVALID_COMM_ID = RejectReason.INVALID_COMM_ID.code();
    static final int REJ_INVALID_SERVICE_ID = RejectReason.INVALID_SERVICE_ID.code();
    static final int REJ_STALE_CONN = RejectReason.STALE_CONN.code();
    static final int REJ_CONSUMER_DEFINED = RejectReason.CONSUMER_DEFINED.code();

    final CommunicationManager cm;
    CmUser user;
    CmState state = CmState.IDLE;
    /** Our communication ID as it is on the wire (cm.c {@code id.local_id}). */
    final int localId;
    int remoteId;
    long remoteCaGuid;
    /** The transaction ID of this connection's exchange: ours for a REQ/DREQ we start, the peer's otherwise. */
    long tid;
    long serviceId;
    final Gid localGid;
    final Gid remoteGid;
    final NetworkPath path;

    // What the REQ and REP negotiate (cm.c cm_id_private).
    int localQpn;
    int remoteQpn;
    int startingPsn;
    int remotePsn;
    int pathMtu;
    int responderResources;
    int initiatorDepth;
    int retryCount;
    int rnrRetryCount;
    boolean srq;
    /** The local ACK timeout exponent the QP gets ({@code av.timeout}); also what timewait lasts (cm_enter_timewait). */
    int localAckTimeout;
    /** How long a MAD waits for its answer before it is sent again. */
    long timeoutMs;
    int maxCmRetries;

    /** The MAD that waits for an answer, if any. */
    private final OutstandingMad outstanding;
    /** The MRA prepared for a duplicate REQ (cm.c ib_prepare_cm_mra), or null. */
    private byte[] preparedMra;

    CmConnection(CommunicationManager cm, int localId, Gid localGid, Gid remoteGid, NetworkPath path) {
        this.cm = cm;
        this.localId = localId;
        this.localGid = localGid;
        this.remoteGid = remoteGid;
        this.path = path;
        this.outstanding = new OutstandingMad(cm, path, this::retriesSpent);
    }

    // ---- active side ---------------------------------------------------------------------

    /** ib_send_cm_req: IDLE → REQ_SENT, the REQ retried every {@link #timeoutMs}. */
    void sendReq(ConnectRequest request) {
        tid = cm.formTid(localId);
        serviceId = request.serviceId();
        state = CmState.REQ_SENT;
        sendWithRetries(CmAttribute.REQ, request);
    }

    /** cm_rep_handler. */
    void repReceived(ConnectReply reply) {
        switch (state) {
            case REQ_SENT, MRA_REQ_RCVD -> {
                outstanding.cancel();
                state = CmState.REP_RCVD;
                remoteId = reply.localCommId();
                remoteCaGuid = reply.localCaGuid();
                remoteQpn = reply.localQpn();
                remotePsn = reply.startingPsn();
                // cm_rep_handler: our initiator depth is what the peer accepts, and the other way round.
                initiatorDepth = Math.min(initiatorDepth, reply.responderResources());
                rnrRetryCount = reply.rnrRetryCount();
                cm.rememberRemote(this);
                if (user != null) {
                    user.repReceived(this, reply);
                }
            }
            // cm_dup_rep_handler: the RTU was lost — send it again.
            case ESTABLISHED -> send(CmAttribute.RTU, new ReadyToUse(localId, remoteId, new byte[0]));
            default -> cm.countStale();
        }
    }

    /** ib_send_cm_rtu: REP_RCVD → ESTABLISHED. */
    void sendRtu() {
        if (state != CmState.REP_RCVD) {
            return;
        }
        state = CmState.ESTABLISHED;
        send(CmAttribute.RTU, new ReadyToUse(localId, remoteId, new byte[0]));
    }

    // ---- passive side --------------------------------------------------------------------

    /** cm_req_handler, once a listener took the REQ: the values the REP and the QP will use. */
    void requestReceived(ConnectRequest request, long requestTid, int localActiveMtu) {
        tid = requestTid;
        state = CmState.REQ_RCVD;
        serviceId = request.serviceId();
        remoteId = request.localCommId();
        remoteCaGuid = request.localCaGuid();
        remoteQpn = request.localQpn();
        remotePsn = request.startingPsn();
        pathMtu = Math.min(request.pathMtu(), localActiveMtu);
        retryCount = request.retryCount();
        rnrRetryCount = request.rnrRetryCount();
        srq = request.srq();
        localAckTimeout = request.primaryPath().localAckTimeout();
        // cm_req_handler: timeout_ms from the REQ's local CM response timeout, retries from its max_cm_retries.
        timeoutMs = CmTiming.toMillis(request.localCmResponseTimeout());
        maxCmRetries = request.maxCmRetries();
        // The peer's view, reversed: what it reads is what we answer (cm_req_handler).
        responderResources = request.initiatorDepth();
        initiatorDepth = request.responderResources();
    }

    /**
     * cma_ib_req_handler → ib_prepare_cm_mra: the consumer has the request but has not answered;
     * an MRA waits, sent only if the REQ comes again (the peer's retry), so the peer waits longer.
     */
    void prepareMra() {
        if (state == CmState.REQ_RCVD) {
            state = CmState.MRA_REQ_SENT;
            preparedMra = cm.encode(tid, CmAttribute.MRA, new MessageReceiptAck(localId, remoteId,
                    MessageReceiptAck.MRAED_REQ, CmTiming.MRA_SERVICE_TIMEOUT, new byte[0]));
        }
    }

    /** cm_dup_req_handler: the peer sent its REQ again. */
    void duplicateReqReceived() {
        switch (state) {
            case MRA_REQ_SENT -> cm.sendMad(path, preparedMra);
            case TIMEWAIT -> cm.sendMad(path, cm.encode(tid, CmAttribute.REJ, new ConnectReject(localId, remoteId,
                    ConnectReject.REJECTED_REQ, 0, REJ_STALE_CONN, new byte[0], new byte[0])));
            default -> cm.countStale(); // the REP's own retries answer it
        }
    }

    /** ib_send_cm_rep: REQ_RCVD/MRA_REQ_SENT → REP_SENT, the REP retried. */
    void sendRep(ConnectReply reply) {
        preparedMra = null;
        state = CmState.REP_SENT;
        sendWithRetries(CmAttribute.REP, reply);
    }

    /** cm_rtu_handler, and cm_establish (IBTA's communication established: the first packet on the QP). */
    void rtuReceived() {
        if (state == CmState.REP_SENT || state == CmState.MRA_REP_RCVD) {
            outstanding.cancel();
            state = CmState.ESTABLISHED;
            if (user != null) {
                user.established(this);
            }
        } else {
            cm.countStale();
        }
    }

    // ---- either side ----------------------------------------------------------------------

    /** cm_mra_handler: the peer needs longer; the outstanding MAD waits {@code service timeout + packet life time}. */
    void mraReceived(MessageReceiptAck mra) {
        CmState next = switch (state) {
            case REQ_SENT -> mra.messageMraed() == MessageReceiptAck.MRAED_REQ ? CmState.MRA_REQ_RCVD : null;
            case REP_SENT -> mra.messageMraed() == MessageReceiptAck.MRAED_REP ? CmState.MRA_REP_RCVD : null;
            default -> null;
        };
        if (next == null || !outstanding.isWaiting()) {
            cm.countStale();
            return;
        }
        state = next;
        timeoutMs = CmTiming.toMillis(mra.serviceTimeout()) + CmTiming.toMillis(localAckTimeout);
        outstanding.stretch(timeoutMs);
    }

    /** ib_send_cm_rej: from the REQ/REP phase back to IDLE. */
    void sendRej(int reason, byte[] privateData) {
        int rejected = switch (state) {
            case REQ_RCVD, MRA_REQ_SENT -> ConnectReject.REJECTED_REQ;
            case REP_RCVD -> ConnectReject.REJECTED_REP;
            case REQ_SENT, MRA_REQ_RCVD, REP_SENT, MRA_REP_RCVD -> ConnectReject.REJECTED_OTHER;
            default -> -1;
        };
        if (rejected < 0) {
            return;
        }
        outstanding.cancel();
        byte[] ari = new byte[0];
        int ariLength = 0;
        if (reason == REJ_TIMEOUT) {
            // cm_destroy_id: a REQ given up on is rejected with our CA GUID as the ARI.
            ari = CmTiming.guidBytes(cm.caGuid());
            ariLength = ari.length;
        }
        send(CmAttribute.REJ, new ConnectReject(localId, remoteId, rejected, ariLength, reason, ari,
                privateData == null ? new byte[0] : privateData));
        cm.sidrAnswered(this);
        resetToIdle();
    }

    /**
     * cm_destroy_id of a REQ received with −ENOMEM (ucma's backlog is full): back to IDLE without a
     * REJ — "do not reject to allow future retries" — so the peer's next REQ may find room.
     */
    void abandonRequest() {
        if (state == CmState.REQ_RCVD) {
            user = null;
            resetToIdle();
        }
    }

    /** cm_rej_handler. */
    void rejReceived(ConnectReject reject) {
        switch (state) {
            case REQ_SENT, MRA_REQ_RCVD, REP_SENT, MRA_REP_RCVD, REQ_RCVD, MRA_REQ_SENT, REP_RCVD -> {
                outstanding.cancel();
                if (reject.reason() == REJ_STALE_CONN) {
                    enterTimewait();
                } else {
                    resetToIdle();
                }
                if (user != null) {
                    user.rejected(this, reject.reason(), reject.privateData());
                }
            }
            case ESTABLISHED -> {
                enterTimewait();
                if (user != null) {
                    user.rejected(this, reject.reason(), reject.privateData());
                }
            }
            default -> cm.countStale();
        }
    }

    /** ib_send_cm_dreq: ESTABLISHED → DREQ_SENT, retried; unanswered, the connection ends anyway. */
    void sendDreq() {
        if (state != CmState.ESTABLISHED) {
            return;
        }
        tid = cm.formTid(localId);
        state = CmState.DREQ_SENT;
        sendWithRetries(CmAttribute.DREQ, new DisconnectRequest(localId, remoteId, remoteQpn, new byte[0]));
    }

    /** cm_dreq_handler. */
    void dreqReceived(long dreqTid) {
        switch (state) {
            case ESTABLISHED, REP_SENT, MRA_REP_RCVD -> {
                outstanding.cancel();
                tid = dreqTid;
                state = CmState.DREQ_RCVD;
                if (user != null) {
                    user.disconnected(this, 0);
                } else {
                    sendDrep();
                }
            }
            case DREQ_SENT -> {
                // Both sides disconnect at once (IBTA 12.9.6): answer, and wait out timewait.
                outstanding.cancel();
                tid = dreqTid;
                send(CmAttribute.DREP, new DisconnectReply(localId, remoteId, new byte[0]));
                enterTimewait();
                if (user != null) {
                    user.disconnected(this, 0);
                }
            }
            // cm_dreq_handler: a DREQ again (our DREP was lost) — answer it again.
            case TIMEWAIT -> send(CmAttribute.DREP, new DisconnectReply(localId, remoteId, new byte[0]));
            default -> cm.countStale();
        }
    }

    /** ib_send_cm_drep: DREQ_RCVD → TIMEWAIT. */
    void sendDrep() {
        if (state != CmState.DREQ_RCVD) {
            return;
        }
        send(CmAttribute.DREP, new DisconnectReply(localId, remoteId, new byte[0]));
        enterTimewait();
    }

    /** cm_drep_handler. */
    void drepReceived() {
        if (state != CmState.DREQ_SENT) {
            cm.countStale();
            return;
        }
        outstanding.cancel();
        enterTimewait();
        if (user != null) {
            user.disconnected(this, 0);
        }
    }

    /**
     * cm_destroy_id: the rdma_cm id goes away. What the connection owes its peer is sent — a REJ in
     * the REQ/REP phase (reason 1 timeout for our own REQ, 28 otherwise), one DREQ when established,
     * the DREP of a DREQ received — and a connection in timewait stays until its timer ends.
     */
    void destroy() {
        user = null;
        switch (state) {
            case REQ_SENT, MRA_REQ_RCVD -> sendRej(REJ_TIMEOUT, null);
            case REQ_RCVD, MRA_REQ_SENT, REP_RCVD, REP_SENT, MRA_REP_RCVD -> sendRej(REJ_CONSUMER_DEFINED, null);
            case ESTABLISHED -> {
                tid = cm.formTid(localId);
                send(CmAttribute.DREQ, new DisconnectRequest(localId, remoteId, remoteQpn, new byte[0]));
                enterTimewait();
            }
            case DREQ_SENT -> {
                outstanding.cancel();
                enterTimewait();
            }
            case DREQ_RCVD -> sendDrep();
            case SIDR_REQ_RCVD -> Sidr.sendReply(this, SidrStatus.REJECT, 0, 0, null); // cm_reject_sidr_req
            case SIDR_REQ_SENT -> resetToIdle();
            case TIMEWAIT -> {
                // freed when timewait ends
            }
            default -> cm.forget(this);
        }
        if (state == CmState.IDLE) {
            cm.forget(this);
        }
    }

    // ---- timers and sending ------------------------------------------------------------------

    void sendWithRetries(CmAttribute attribute, CmMessage message) {
        outstanding.send(cm.encode(tid, attribute, message), maxCmRetries, timeoutMs);
    }

    void send(CmAttribute attribute, CmMessage message) {
        cm.sendMad(path, cm.encode(tid, attribute, message));
    }

    /** cm_process_send_error: the MAD's retries are spent. */
    private void retriesSpent() {
        switch (state) {
            case REQ_SENT, MRA_REQ_RCVD, REP_SENT, MRA_REP_RCVD, SIDR_REQ_SENT -> {
                resetToIdle();
                if (user != null) {
                    user.unreachable(this);
                }
            }
            case DREQ_SENT -> {
                enterTimewait();
                if (user != null) {
                    user.disconnected(this, CmTiming.ETIMEDOUT);
                }
            }
            default -> {
            }
        }
    }

    /** cm_enter_timewait: stray packets may still come; after {@code cm_convert_to_ms(av.timeout)} the connection is gone. */
    private void enterTimewait() {
        outstanding.cancel();
        state = CmState.TIMEWAIT;
        cm.schedule(CmTiming.toMillis(localAckTimeout) * 1_000_000L, this::timewaitOver);
    }

    private void timewaitOver() {
        if (state != CmState.TIMEWAIT) {
            return;
        }
        state = CmState.IDLE;
        cm.forget(this);
        if (user != null) {
            user.timewaitExit(this);
        }
    }

    /** cm_reset_to_idle. */
    void resetToIdle() {
        outstanding.cancel();
        preparedMra = null;
        state = CmState.IDLE;
        if (user == null) {
            cm.forget(this);
        }
    }

    @Override
    public String toString() {
        return "CmConnection[" + Integer.toHexString(localId) + " " + state + " remote " + Integer.toHexString(remoteId) + "]";
    }
}
