package org.roce4j.emulator.verbs;

import org.roce4j.emulator.Quirk;
import org.roce4j.emulator.RnicCounter;
import org.roce4j.emulator.transport.SendWqe;
import org.roce4j.emulator.node.Doorbells;
import org.roce4j.emulator.node.NetworkPath;
import org.roce4j.emulator.node.QpTimers;
import org.roce4j.emulator.node.Rnic;
import org.roce4j.emulator.transport.Completer;
import org.roce4j.emulator.transport.ReceiveQueue;
import org.roce4j.emulator.transport.Requester;
import org.roce4j.emulator.transport.Responder;
import org.roce4j.emulator.transport.SendQueue;
import org.roce4j.emulator.transport.SendWindow;
import java.util.List;
import java.util.Objects;
import java.util.Set;

import org.roce4j.verbs.AccessFlag;
import org.roce4j.verbs.AhAttr;
import org.roce4j.verbs.AsyncEvent;
import org.roce4j.verbs.AsyncEventType;
import org.roce4j.verbs.BadWorkRequestException;
import org.roce4j.verbs.Errno;
import org.roce4j.verbs.Gid;
import org.roce4j.verbs.Mtu;
import org.roce4j.verbs.Mw;
import org.roce4j.verbs.MwBind;
import org.roce4j.verbs.VerbsException;
import org.roce4j.verbs.Pd;
import org.roce4j.verbs.Qp;
import org.roce4j.verbs.QpAttr;
import org.roce4j.verbs.QpAttrMask;
import org.roce4j.verbs.QpCap;
import org.roce4j.verbs.QpInitAttr;
import org.roce4j.verbs.QpState;
import org.roce4j.verbs.QpTransitions;
import org.roce4j.verbs.QpType;
import org.roce4j.verbs.RecvWr;
import org.roce4j.verbs.SendFlag;
import org.roce4j.verbs.SendWr;
import org.roce4j.verbs.VerbsException;
import org.roce4j.verbs.WcOpcode;
import org.roce4j.verbs.WcStatus;
import org.roce4j.verbs.WorkCompletion;
import org.roce4j.verbs.WrOpcode;
import org.roce4j.wire.HeaderType;
import org.roce4j.wire.PacketInfo;
import org.roce4j.wire.Psn;
import org.roce4j.wire.Transport;

/**
 * A queue pair: its attributes and state machine (IBTA §10.3, checked against {@link QpTransitions}),
 * its queues, the synchronous checks of posting, and the datapath parts that run for it — a
 * {@link Requester}, a {@link Completer} and a {@link Responder}, as rxe splits a QP's work.
 *
 * <p>Entering the error state flushes every outstanding send and receive WQE with
 * {@link WcStatus#WR_FLUSH_ERR} (IBTA 10.3.1, QP states: the error state; rxe_resp.c: check_resource
 * flushes receive WQEs with IB_WC_WR_FLUSH_ERR in QP_STATE_ERROR); as in rxe, posting in the error state is
 * accepted and the WQE is flushed at once, so nothing posted is ever lost without a completion.
 * RESET discards everything without completions.
 */
public final class EmulatedQp extends Resource implements Qp, QpTimers.Member {
    // The objects a message touches are declared first, for where they lie: a young collection copies a QP's
    // objects depth first, in the order of its reference fields, so these and theirs (the send queue's slot-0
    // WQE, the requester's window, the responder's ACK state) land just after the QP, ahead of its attributes and
    // receive queue; at 10,000 pairs in random order that is 12-15% more messages a second (bench/RESULTS.md,
    // "hot objects first"). SendQueue and Responder order their fields by the same rule.
    public final SendQueue sq;
    public final Requester requester;
    public final Completer completer;
    public final Responder responder;
    public final EmulatedPd pd;
    public final QpType type;
    /** The transport of {@link #type}, which every packet's opcode must name (rxe_recv.c check_type_state). */
    private final Transport transport;
    public final int qpn;
    final EmulatedCq sendCq;
    final EmulatedCq recvCq;
    public final EmulatedSrq srq;
    /**
     * The PD a receive WQE's lkeys are checked against: the SRQ's when the QP takes its receives from one
     * (which may be of another PD than the QP, as Linux allows: the WQE belongs to the SRQ; rdmavt's
     * init_sge checks {@code qp->ibqp.srq ? srq->pd : qp->pd}), else the QP's.
     */
    public final Object receivePd;
    final boolean sqSigAll;
    private final QpInitAttr initAttr;
    /** What the queues hold, as ibv_query_qp reports it (initAttr's cap is what ibv_create_qp wrote back). */
    private final QpCap grantedCap;
    public final ReceiveQueue rq;
    public final int sourcePort;
    /** Rung by a post without the fabric lock ({@link #postSend}); answered by {@link #doorbellRang}. */
    public final Doorbells.Doorbell<EmulatedQp> doorbell = new Doorbells.Doorbell<>(this);
    /** Set while the QP waits on the RNIC's run queue. */
    public boolean scheduled;
    /** Whether the next duty cycle runs the requester: set by {@link Rnic#schedule}, not by {@link Rnic#scheduleResponder}. */
    public boolean requesterDue;
    /** The QP's place among its RNIC's armed timers ({@link QpTimers}), -1 while none is armed. */
    private int timerSlot = -1;

    /** Volatile: a post reads it without the fabric lock ({@link #postSend}). */
    public volatile QpState state = QpState.RESET;
    int pkeyIndex;
    int portNum = DeviceLimits.PORT;
    public int qkey;
    public int accessFlags;
    Mtu pathMtu = Mtu.MTU_1024;
    public int destQpn;
    int rqPsn;
    int sqPsn;
    public int timeout;
    public int retryCnt;
    public int rnrRetry;
    public int minRnrTimer;
    public int maxRdAtomic;
    public int maxDestRdAtomic;
    public boolean enSqdAsyncNotify;
    /**
     * Run once, on the first valid request: IBTA's communication established (11.6.2, {@code
     * IBV_EVENT_COMM_EST}), which the CM of a passive side that sent its REP and has no RTU yet
     * takes as the RTU (cm.c {@code ib_cm_notify}). Null when nobody waits: one null check per request.
     */
    public Runnable firstRequestHook;
    AhAttr av;
    public NetworkPath path;
    /**
     * What the responder owes the duty cycle ({@link #OWES_ACK}, {@link #OWES_READ_RESPONSES}), kept here so
     * that a duty cycle with nothing owed does not touch the responder's objects: at 10,000 QPs each is a
     * cache miss (bench/RESULTS.md, "what the duty cycle touches"). Written by the responder's side only.
     */
    public int responderOwes;
    public static final int OWES_ACK = 1;
    /**
     * Changes to the QP's state or attributes — each {@code ibv_modify_qp}, each entry into the error state, a
     * reset, its destruction: what a train's next packet is placed without its full checks depends on
     * ({@link org.roce4j.emulator.transport.Responder#placeNextOfTrain}) is as it was while this does not move.
     */
    public int changes;
    public static final int OWES_READ_RESPONSES = 2;

    private EmulatedQp(Rnic rnic, EmulatedPd pd, QpInitAttr init, QpCap granted) {
        super(rnic);
        this.pd = pd;
        this.type = init.type();
        this.transport = transportOf(type);
        this.sendCq = (EmulatedCq) init.sendCq();
        this.recvCq = (EmulatedCq) init.recvCq();
        this.srq = (EmulatedSrq) init.srq();
        // rdmavt init_sge: a WQE's buffers belong to the PD of the queue it came from; rxe checks the QP's.
        this.receivePd = srq == null || rnic.model.has(Quirk.RECEIVE_BUFFERS_CHECKED_AGAINST_THE_QPS_PD) ? pd : srq.pd;
        this.sqSigAll = init.sqSigAll();
        this.initAttr = new QpInitAttr(type, init.sendCq(), init.recvCq(), init.srq(),
                QpChecks.reportedAtCreate(rnic.model, init.cap(), granted), sqSigAll);
        this.grantedCap = granted;
        this.sq = new SendQueue(granted.maxSendWr(), granted.maxSendSge(), granted.maxInlineData());
        this.rq = srq == null ? new ReceiveQueue(granted.maxRecvWr(), granted.maxRecvSge()) : null;
        this.qpn = rnic.allocateQpn(this);
        this.sourcePort = Rnic.sourcePortOf(qpn);
        SendWindow window = new SendWindow();
        this.requester = new Requester(this, window);
        this.completer = new Completer(this, window);
        this.responder = new Responder(this, srq == null ? granted.maxRecvSge() : srq.queue.maxSge);
        rnic.responderMade(qpn, responder);
    }

    /** {@code ibv_create_qp}, under the fabric lock: checks the CQs, the SRQ and the caps against the device. */
    static EmulatedQp create(Rnic rnic, EmulatedPd pd, QpInitAttr init) {
        String verb = "ibv_create_qp";
        if (!(init.sendCq() instanceof EmulatedCq send) || !(init.recvCq() instanceof EmulatedCq recv)) {
            throw invalid(verb, "a send CQ and a receive CQ of this device are required");
        }
        if (send.context != pd.context || recv.context != pd.context) {
            throw invalid(verb, "the CQs belong to another context than the PD");
        }
        send.checkOpen(verb);
        recv.checkOpen(verb);
        EmulatedSrq srq = null;
        if (init.srq() != null) {
            // An SRQ of another PD is fine (ib_create_qp / rxe_qp_chk_init check none; IBTA lets a QP and
            // its SRQ be in different PDs): its receive buffers are then checked against the SRQ's PD.
            if (!(init.srq() instanceof EmulatedSrq s) || s.pd.context != pd.context) {
                throw invalid(verb, "the SRQ belongs to another context");
            }
            s.checkOpen(verb);
            srq = s;
        }
        QpCap granted = QpChecks.grantedCaps(rnic.model, verb, init.cap(), srq != null);
        EmulatedQp qp = new EmulatedQp(rnic, pd, init, granted);
        send.users++;
        recv.users++;
        if (srq != null) {
            srq.users++;
        }
        pd.qps++;
        return qp;
    }

    @Override
    String kind() {
        return "queue pair";
    }

    // ---- Qp ------------------------------------------------------------------------------

    @Override
    public int qpNum() {
        return qpn;
    }

    @Override
    public QpType type() {
        return type;
    }

    @Override
    public Pd pd() {
        return pd;
    }

    @Override
    public QpInitAttr initAttr() {
        return initAttr;
    }

    @Override
    public QpState state() {
        return rnic.call(() -> {
            checkOpen("ibv_query_qp");
            return state;
        });
    }

    /** The payload bytes per packet: the path MTU (RC, UC), or the port's active MTU (UD, as rxe). */
    public int mtu() {
        return type == QpType.UD ? rnic.activeMtu.bytes() : pathMtu.bytes();
    }

    @Override
    public void modify(QpAttr attr, Set<QpAttrMask> mask) {
        Objects.requireNonNull(attr, "attr");
        Objects.requireNonNull(mask, "mask");
        rnic.run(() -> {
            String verb = "ibv_modify_qp";
            checkOpen(verb);
            QpState current = state;
            if (mask.contains(QpAttrMask.CUR_STATE) && attr.curQpState() != current) {
                throw invalid(verb, "cur_qp_state " + attr.curQpState() + " is not the QP's state " + current);
            }
            QpState target = mask.contains(QpAttrMask.STATE) ? attr.qpState() : current;
            QpChecks.checkTransition(rnic, type, current, target, mask);
            NetworkPath newPath = QpChecks.checkAttributes(rnic, verb, attr, mask);
            apply(attr, mask, newPath);
            changes++;
            transition(current, target);
        });
        rnic.wakeUp();
    }

    private void apply(QpAttr attr, Set<QpAttrMask> mask, NetworkPath newPath) {
        if (mask.contains(QpAttrMask.PKEY_INDEX)) {
            pkeyIndex = attr.pkeyIndex();
        }
        if (mask.contains(QpAttrMask.PORT)) {
            portNum = attr.portNum();
        }
        if (mask.contains(QpAttrMask.QKEY)) {
            qkey = attr.qkey();
        }
        if (mask.contains(QpAttrMask.ACCESS_FLAGS)) {
            accessFlags = AccessFlag.bits(attr.qpAccessFlags());
        }
        if (mask.contains(QpAttrMask.AV)) {
            av = attr.ahAttr();
            path = newPath;
        }
        if (mask.contains(QpAttrMask.PATH_MTU)) {
            pathMtu = attr.pathMtu();
        }
        if (mask.contains(QpAttrMask.DEST_QPN)) {
            destQpn = attr.destQpNum();
        }
        if (mask.contains(QpAttrMask.RQ_PSN)) {
            rqPsn = attr.rqPsn() & Psn.MASK;   // rxe_qp_from_attr: masked to 24 bits, not refused
            responder.startAt(rqPsn);
        }
        if (mask.contains(QpAttrMask.SQ_PSN)) {
            sqPsn = attr.sqPsn() & Psn.MASK;
            requester.startAt(sqPsn);
        }
        if (mask.contains(QpAttrMask.TIMEOUT)) {
            timeout = attr.timeout();
        }
        if (mask.contains(QpAttrMask.RETRY_CNT)) {
            retryCnt = attr.retryCnt();
            completer.resetRetryCounters();
        }
        if (mask.contains(QpAttrMask.RNR_RETRY)) {
            rnrRetry = attr.rnrRetry();
            completer.resetRetryCounters();
        }
        if (mask.contains(QpAttrMask.MIN_RNR_TIMER)) {
            minRnrTimer = attr.minRnrTimer();
        }
        if (mask.contains(QpAttrMask.MAX_QP_RD_ATOMIC)) {
            maxRdAtomic = attr.maxRdAtomic();
        }
        if (mask.contains(QpAttrMask.MAX_DEST_RD_ATOMIC)) {
            maxDestRdAtomic = attr.maxDestRdAtomic();
            responder.resizeResources(maxDestRdAtomic);
        }
        if (mask.contains(QpAttrMask.EN_SQD_ASYNC_NOTIFY)) {
            enSqdAsyncNotify = attr.enSqdAsyncNotify();
        }
    }

    private void transition(QpState from, QpState to) {
        if (to == QpState.RESET) {
            reset();
            return;
        }
        if (to == QpState.ERR) {
            enterError();
            return;
        }
        state = to;
        if (from == QpState.RTS && to == QpState.SQD) {
            requester.enterDrain();
        }
        if (to == QpState.RTS) {
            rnic.schedule(this);
        }
    }

    /** What a post to the QP's own receive queue holds: the queue; the send queue's for a QP on an SRQ (none). */
    private Object receiveQueueMonitor() {
        return rq != null ? rq : sq;
    }

    /** RESET (IBTA 10.3.1): queues emptied without completions, the datapath forgets everything. */
    private void reset() {
        synchronized (sq) { // no post lands between the check of the state and the emptied queues
            synchronized (receiveQueueMonitor()) {
                state = QpState.RESET;
                changes++;
                sq.clear();
                requester.reset();
                if (rq != null) {
                    rq.clear();
                }
            }
        }
        completer.reset();
        responder.reset();
        rnic.timerChanged(this);
    }

    /**
     * Moves the QP to the error state and flushes (IBTA 10.3.1, the error state; rxe_resp.c:
     * check_resource for the receive side): every outstanding send
     * WQE and every receive WQE of its own receive queue completes with WR_FLUSH_ERR, signaled or
     * not. A QP on an SRQ raises QP_LAST_WQE_REACHED (IBTA 10.2.9.5,
     * the Last WQE Reached affiliated event of a QP on an SRQ; ibv_get_async_event(3)).
     */
    public void enterError() {
        boolean wasError = state == QpState.ERR;
        state = QpState.ERR;
        changes++;
        completer.clearTimers();
        rnic.timerChanged(this);
        responder.flushCurrent();
        flushSendQueue();
        flushReceiveQueue();
        if (!wasError && srq != null) {
            pd.context.raise(AsyncEvent.of(AsyncEventType.QP_LAST_WQE_REACHED, this));
        }
    }

    /**
     * Flushes what was posted when it began; a WQE posted meanwhile (without the fabric lock) rings the
     * doorbell, and the duty cycle that answers it flushes that one ({@link #sendQueueGrew}).
     */
    private void flushSendQueue() {
        long end = sq.posted;
        while (sq.retired != end) {
            SendWqe wqe = sq.at(sq.retired);
            sq.retired++;
            completeSend(wqe, WcStatus.WR_FLUSH_ERR);
        }
        sq.release();
        requester.flushed(end);
    }

    /**
     * Flushes what was posted when it began, as {@link #flushSendQueue}: a receive posted meanwhile (without the
     * fabric lock) is flushed by its poster, which sees ERR ({@link #flushReceivesPostedInErrorWithoutLock}).
     */
    private void flushReceiveQueue() {
        if (rq == null) {
            return;
        }
        for (int waiting = rq.count(); waiting > 0; waiting--) {
            long wrId = rq.removeHead();
            completeReceive(wrId, WcStatus.WR_FLUSH_ERR, WcOpcode.RECV, 0, 0, 0, 0, 0, false);
        }
    }

    @Override
    public QpAttr query(Set<QpAttrMask> mask) {
        Objects.requireNonNull(mask, "mask");
        return rnic.call(() -> {
            checkOpen("ibv_query_qp");
            QpAttr attr = new QpAttr()
                    .qpState(state).curQpState(state).pathMtu(pathMtu).qkey(qkey)
                    .rqPsn(rqPsn).sqPsn(sqPsn).destQpNum(destQpn)
                    .qpAccessFlags(AccessFlag.of(accessFlags)).cap(grantedCap)
                    .pkeyIndex(pkeyIndex).enSqdAsyncNotify(enSqdAsyncNotify)
                    .maxRdAtomic(maxRdAtomic).maxDestRdAtomic(maxDestRdAtomic).minRnrTimer(minRnrTimer)
                    .portNum(portNum).timeout(timeout).retryCnt(retryCnt).rnrRetry(rnrRetry)
                    .reportSqDraining(state == QpState.SQD && requester.hasSendsInFlight());
            if (av != null) {
                attr.ahAttr(av);
            }
            return attr;
        });
    }

    // ---- posting ---------------------------------------------------------------------------

    /**
     * {@code ibv_post_send}. On a threaded fabric the post takes the send queue's own monitor and not the fabric
     * lock, and rings the RNIC's doorbell (rdma-core's rxe provider: {@code rxe_post_send} writes the mmapped
     * queue under {@code sq.lock} and then rings the kernel): an application thread does not wait for the
     * event loop's duty cycle to post (bench/RESULTS.md, "posting without the fabric lock"). On a deterministic
     * fabric it runs under the fabric lock and schedules the requester at once, in the order it always did.
     */
    @Override
    public void postSend(SendWr wr) {
        Objects.requireNonNull(wr, "wr");
        if (rnic.isDeterministic()) {
            rnic.run(EmulatedQp::postOneSendLocked, this, wr); // a static reference: no allocation per post
        } else {
            try {
                postSendOne(wr, 0);
            } finally {
                rnic.ringDoorbell(this);
            }
        }
    }

    private static void postOneSendLocked(EmulatedQp qp, SendWr wr) {
        qp.postSendOne(wr, 0);
        qp.sendQueueGrew();
    }

    @Override
    public void postSend(List<SendWr> wrs) {
        Objects.requireNonNull(wrs, "wrs");
        postList(rnic.isDeterministic(), () -> postSendList(wrs), this::sendQueueGrew, () -> rnic.ringDoorbell(this));
    }

    /**
     * A list post: under the fabric lock when {@code locked}, then {@code thenLocked} inside it; otherwise without
     * it, then {@code thenUnlocked}. Each follows a post that failed part-way too: the WRs before a bad one are
     * posted (libibverbs' bad_wr).
     */
    private void postList(boolean locked, Runnable post, Runnable thenLocked, Runnable thenUnlocked) {
        if (locked) {
            rnic.run(() -> {
                try {
                    post.run();
                } finally {
                    thenLocked.run();
                }
            });
        } else {
            try {
                post.run();
            } finally {
                thenUnlocked.run();
            }
        }
    }

    private void postSendList(List<SendWr> wrs) {
        for (int i = 0; i < wrs.size(); i++) {
            postSendOne(wrs.get(i), i);
        }
    }

    /**
     * The RNIC answers a doorbell (in its duty cycle, under the fabric lock): what was posted since is flushed
     * or sent. A QP destroyed since has nothing to answer.
     */
    public void doorbellRang() {
        if (!closed) {
            sendQueueGrew();
        }
    }

    /**
     * {@code ibv_bind_mw} as rdma-core's rxe provider does it (rxe_bind_mw): a BIND_MW work request with
     * the window's rkey incremented, posted; on success the new rkey is written back to the handle.
     */
    @Override
    public void bindMw(Mw mw, MwBind bind) {
        Objects.requireNonNull(mw, "mw");
        Objects.requireNonNull(bind, "bind");
        MwBind.checkIbvBindMw(mw, bind);
        if (bind.bindInfo().mwAccessFlags().contains(AccessFlag.ZERO_BASED)) {
            // rdma-core's rxe_bind_mw, before it posts anything (IBTA o10-36.2.2: a type 1 window is not zero based).
            throw new VerbsException(Errno.EINVAL, "ibv_bind_mw: a type 1 window cannot be zero based");
        }
        if (bind.bindInfo().mr() == null) {
            // rdma-core's rxe convert_send_wr reads mr->lkey of every bind: a null region is refused here.
            throw new VerbsException(Errno.EINVAL, "ibv_bind_mw: no region (unbind with a region and length 0)");
        }
        SendWr wr = new SendWr().wrId(bind.wrId()).opcode(WrOpcode.BIND_MW).sendFlags(bind.sendFlags())
                .bindMw(mw, Mw.incRkey(mw.rkey()), bind.bindInfo());
        rnic.run(() -> {
            postSendOne(wr, 0);
            sendQueueGrew();
            ((EmulatedMw) mw).rkey = wr.bindRkey(); // "user has to undo this if he gets an error wc"
        });
        rnic.sendPosted();
    }

    /** Checks and queues one WR under the send queue's monitor; the caller schedules the requester or rings. */
    private void postSendOne(SendWr wr, int index) {
        synchronized (sq) {
            queueSend(wr, index);
        }
    }

    private void queueSend(SendWr wr, int index) {
        String problem = WorkRequestChecks.sendProblem(this, wr);
        if (problem != null) {
            throw new BadWorkRequestException(Errno.EINVAL, index, wr.wrId(), "ibv_post_send: " + problem);
        }
        if (sq.isFull()) {
            throw new BadWorkRequestException(Errno.ENOMEM, index, wr.wrId(),
                    "ibv_post_send: the send queue is full (" + sq.capacity + " WQEs)");
        }
        NetworkPath udPath = type == QpType.UD ? ((EmulatedAh) wr.ah()).path : null;
        if (sq.post(wr, udPath, pd.context.registeredMemory) < 0) {
            throw new BadWorkRequestException(Errno.EINVAL, index, wr.wrId(), "ibv_post_send: the INLINE data's "
                    + "memory was closed, or is confined to another thread, and cannot be read");
        }
    }

    /** WQEs were posted: in ERR or SQE they are flushed at once (IBTA 10.8.3.1), otherwise the requester runs. */
    void sendQueueGrew() {
        if (state == QpState.ERR || state == QpState.SQE) {
            flushSendQueue();
        } else {
            rnic.schedule(this);
        }
    }

    /**
     * {@code ibv_post_recv}. On a threaded fabric a post to the QP's own receive queue takes that queue's monitor
     * and not the fabric lock, as rdma-core's rxe provider writes the mmapped queue under {@code rq.lock} and
     * tells the kernel nothing (the responder reads the queue when a SEND arrives): a receive reposted for every
     * message does not wait for the event loop's duty cycle (bench/RESULTS.md, "receives posted without the
     * fabric lock"). Only a post to a QP in ERR takes the lock, to flush. On a deterministic fabric, and for a
     * QP on an SRQ (which refuses it), it runs under the fabric lock.
     */
    @Override
    public void postRecv(RecvWr wr) {
        Objects.requireNonNull(wr, "wr");
        if (rnic.isDeterministic() || rq == null) {
            rnic.run(EmulatedQp::postOneReceiveLocked, this, wr); // a static reference: no allocation per post
        } else {
            try {
                synchronized (rq) {
                    postRecvOne(wr, 0);
                }
            } finally {
                flushReceivesPostedInErrorWithoutLock();
            }
        }
    }

    private static void postOneReceiveLocked(EmulatedQp qp, RecvWr wr) {
        qp.postRecvOne(wr, 0);
        qp.flushReceivesPostedInError();
    }

    @Override
    public void postRecv(List<RecvWr> wrs) {
        Objects.requireNonNull(wrs, "wrs");
        postList(rnic.isDeterministic() || rq == null, () -> postRecvList(wrs), this::flushReceivesPostedInError,
                this::flushReceivesPostedInErrorWithoutLock);
    }

    /** Under the receive queue's monitor, which a post without the fabric lock needs (see {@link #postRecv(RecvWr)}). */
    private void postRecvList(List<RecvWr> wrs) {
        synchronized (receiveQueueMonitor()) {
            for (int i = 0; i < wrs.size(); i++) {
                postRecvOne(wrs.get(i), i);
            }
        }
    }

    private void postRecvOne(RecvWr wr, int index) {
        String problem = WorkRequestChecks.receiveProblem(this, wr);
        if (problem != null) {
            throw new BadWorkRequestException(Errno.EINVAL, index, wr.wrId(), "ibv_post_recv: " + problem);
        }
        if (rq.isFull()) {
            throw new BadWorkRequestException(Errno.ENOMEM, index, wr.wrId(),
                    "ibv_post_recv: the receive queue is full (" + rq.capacity + " WQEs)");
        }
        rq.post(wr);
    }

    /**
     * After a post without the fabric lock. The post published its WQE before it reads the state, and
     * {@link #enterError} sets the state before it flushes: one of the two sees the other (both volatile), so a
     * WQE posted while the QP enters ERR is flushed by one of them and never left behind.
     */
    private void flushReceivesPostedInErrorWithoutLock() {
        if (state == QpState.ERR) {
            rnic.run(this::flushReceivesPostedInError);
        }
    }

    /**
     * A receive posted in ERR completes WR_FLUSH_ERR at once (IBTA 10.8.3.1; rxe's responder flushes its
     * queue in ERR), except on a device whose {@link Quirk#RECEIVES_POSTED_IN_ERROR_ARE_NOT_FLUSHED}.
     */
    private void flushReceivesPostedInError() {
        if (state == QpState.ERR && !rnic.model.has(Quirk.RECEIVES_POSTED_IN_ERROR_ARE_NOT_FLUSHED)) {
            flushReceiveQueue();
        }
    }

    // ---- multicast ---------------------------------------------------------------------------

    @Override
    public void attachMcast(Gid gid, int lid) {
        Objects.requireNonNull(gid, "gid");
        changeGroups("ibv_attach_mcast", () -> rnic.multicast.attach(this, gid, lid));
    }

    @Override
    public void detachMcast(Gid gid, int lid) {
        Objects.requireNonNull(gid, "gid");
        changeGroups("ibv_detach_mcast", () -> rnic.multicast.detach(this, gid, lid));
    }

    /** An attach or a detach under the fabric lock, then (outside it) the link's IP memberships follow. */
    private void changeGroups(String verb, Runnable change) {
        rnic.run(() -> {
            checkOpen(verb);
            change.run();
        });
        rnic.multicastGroupsChanged();
    }

    // ---- completions -----------------------------------------------------------------------

    /**
     * Completes a send WQE (rxe {@code do_complete}): successes only when signaled or sq_sig_all,
     * errors always. A CQ overrun sends the QP to error.
     */
    public void completeSend(SendWqe wqe, WcStatus status) {
        if (status == WcStatus.SUCCESS && !sqSigAll && (wqe.flags & SendFlag.SIGNALED.bit()) == 0) {
            return;
        }
        int byteLen = (int) wqe.length;
        WorkCompletion wc = new WorkCompletion(wqe.wrId, status, wqe.opcode.completionOpcode(), 0, byteLen,
                0, 0, qpn, 0, 0, 0, 0, 0, 0);
        // The WQE is read: its slot, and every slot before it, go back to the posters before the completion is
        // seen. An application that counts its completions (perftest's tx_depth) posts again as soon as it
        // polls this one, and must find the room the completion promises (libibverbs: a polled completion
        // frees its WQE and all before it).
        sq.release();
        if (!sendCq.add(wc, false) && state != QpState.ERR) {
            enterError();
        }
    }

    public void completeReceive(long wrId, WcStatus status, WcOpcode opcode, int byteLen, int immData, int invalidatedRkey,
                         int srcQp, int wcFlags, boolean solicited) {
        if (status == WcStatus.SUCCESS) {
            rnic.count(RnicCounter.RECEIVES_COMPLETED); // rxe do_complete: RXE_CNT_RDMA_RECV
        }
        WorkCompletion wc = new WorkCompletion(wrId, status, opcode, 0, byteLen, immData, invalidatedRkey, qpn,
                srcQp, wcFlags, 0, 0, 0, 0);
        if (!recvCq.add(wc, solicited) && state != QpState.ERR) {
            enterError();
        }
    }

    // ---- datapath dispatch -----------------------------------------------------------------

    /**
     * A packet for this QP (rxe_recv.c {@code check_type_state}, {@code check_keys}): the opcode's
     * transport must be the QP's, the P_Key the default partition's, the UD Q_Key the QP's, and the
     * state one that accepts the packet; then requests go to the responder and responses to the
     * completer.
     */
    public void receive(PacketInfo packet, long nowNanos) {
        receive(packet, nowNanos, responder);
    }

    /**
     * {@link #receive(PacketInfo, long)} with this QP's {@link #responder} as the RNIC's QP table holds it beside the
     * QP (so that the CPU can fetch both at once, {@code Rnic.responders}).
     */
    public void receive(PacketInfo packet, long nowNanos, Responder ownResponder) {
        if (packet.opcode().transport() != transport) {
            rnic.count(RnicCounter.DROPPED_WRONG_TRANSPORT);
            return;
        }
        if ((packet.pkey() & 0x7FFF) != 0x7FFF) {
            rnic.count(RnicCounter.DROPPED_BAD_PKEY);
            return;
        }
        if ((type == QpType.RC || type == QpType.UC) && path != null && !isFromOurPeer(packet)) {
            rnic.count(RnicCounter.DROPPED_WRONG_ADDRESS);
            return;
        }
        if (packet.opcode().isRequest()) {
            if (!acceptsRequests()) {
                rnic.count(RnicCounter.DROPPED_QP_STATE);
                return;
            }
            // IBTA C10-15: a UD packet whose Q_Key does not match is silently dropped.
            if (type == QpType.UD && packet.opcode().has(HeaderType.DETH) && packet.dethQkey() != qkey) {
                rnic.count(RnicCounter.DROPPED_QKEY_VIOLATION);
                return;
            }
            rnic.count(RnicCounter.PACKETS_RECEIVED); // rxe_rcv: past the header checks (type, state, keys)
            if (firstRequestHook != null) {
                Runnable communicationEstablished = firstRequestHook;
                firstRequestHook = null;
                communicationEstablished.run();
            }
            ownResponder.onRequest(packet, nowNanos);
        } else {
            if (state != QpState.RTS && state != QpState.SQD) {
                rnic.count(RnicCounter.DROPPED_QP_STATE);
                return;
            }
            rnic.count(RnicCounter.PACKETS_RECEIVED);
            completer.onResponse(packet, nowNanos);
        }
    }

    /**
     * rxe_recv.c {@code check_addr}: an RC/UC packet must come from the QP's destination address to
     * its source address, in the path's IP version — a connected QP talks to one peer only.
     */
    private boolean isFromOurPeer(PacketInfo packet) {
        if (packet.ipOffset() < 0) {
            return true;
        }
        if ((packet.ipVersion() == 6) != path.ipv6) {
            return false;
        }
        return path.isReturning(packet.buffer(), packet.ipSourceOffset());
    }

    private boolean acceptsRequests() {
        return state == QpState.RTR || state == QpState.RTS || state == QpState.SQD || state == QpState.SQE;
    }

    public static Transport transportOf(QpType type) {
        return switch (type) {
            case RC -> Transport.RC;
            case UC -> Transport.UC;
            case UD -> Transport.UD;
        };
    }

    /** One turn of the duty cycle: owed ACKs and READ responses, then the requester's packets. */
    public int doWork(long nowNanos) {
        if (closed) {
            return 0;
        }
        int work = 0;
        if ((responderOwes & OWES_ACK) != 0) {
            work += responder.flushPendingAck();
        }
        if ((responderOwes & OWES_READ_RESPONSES) != 0) { // else the READ-reply state is left untouched
            work += responder.reads.run();
        }
        if (requesterDue && (state == QpState.RTS || state == QpState.SQD)) {
            requesterDue = false; // before the run, which may ask for another turn
            work += requester.run(nowNanos);
        }
        return work;
    }

    @Override
    public long deadlineNanos() {
        return completer.deadlineNanos();
    }

    @Override
    public int timerSlot() {
        return timerSlot;
    }

    @Override
    public void placeTimer(int slot) {
        timerSlot = slot;
    }

    public void onTimer(long nowNanos) {
        if (!closed) {
            completer.onTimer(nowNanos);
        }
    }

    public void raise(AsyncEventType event) {
        pd.context.raise(AsyncEvent.of(event, this));
    }

    /** {@code ibv_destroy_qp}: outstanding work is discarded without completions (libibverbs). */
    @Override
    public void close() {
        rnic.run(() -> {
            if (closed) {
                return;
            }
            if (rnic.multicast.holdsQp(this)) { // uverbs_free_qp, ib_destroy_qp_user: the user detaches first
                throw new VerbsException(Errno.EBUSY, "ibv_destroy_qp: the QP is attached to a multicast group");
            }
            // rxe drains the QP's tasks before destroying it: an ACK the responder owes still goes
            // out, or the peer's last message (already completed here) would be retried into error.
            if (state == QpState.RTR || state == QpState.RTS || state == QpState.SQD) {
                responder.flushPendingAck();
            }
            synchronized (sq) { // a post either lands before this or finds the QP closed
                synchronized (receiveQueueMonitor()) {
                    closed = true;
                    state = QpState.RESET;
                    changes++;
                }
            }
            rnic.releaseQpn(qpn);
            sendCq.users--;
            recvCq.users--;
            if (srq != null) {
                srq.users--;
            }
            pd.qps--;
        });
    }

    @Override
    public String toString() {
        return type + " QP " + qpn + " (" + state + ") on " + rnic.name;
    }
}
