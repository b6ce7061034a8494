package org.roce4j.tools;

import java.io.PrintWriter;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.EnumSet;
import java.util.Optional;
import java.util.concurrent.Semaphore;

import org.roce4j.cm.CmId;
import org.roce4j.verbs.AccessFlag;
import org.roce4j.verbs.CompChannel;
import org.roce4j.verbs.Context;
import org.roce4j.verbs.Cq;
import org.roce4j.verbs.Mr;
import org.roce4j.verbs.Pd;
import org.roce4j.verbs.Qp;
import org.roce4j.verbs.QpAttr;
import org.roce4j.verbs.QpCap;
import org.roce4j.verbs.QpInitAttr;
import org.roce4j.verbs.QpState;
import org.roce4j.verbs.QpType;
import org.roce4j.verbs.RecvWr;
import org.roce4j.verbs.SendWr;
import org.roce4j.verbs.VerbsException;
import org.roce4j.verbs.WcStatus;
import org.roce4j.verbs.WorkCompletion;

/**
 * rping.c's {@code struct rping_cb} for one connection: its verbs resources, its buffers, the
 * state its completion thread and the CM thread move ({@code enum test_state}), the semaphore the
 * main thread waits on, and the ping loops of {@code rping_test_client} / {@code rping_test_server}.
 * The methods keep rping.c's names, order and lines on stdout/stderr; each returns rping's int.
 */
final class RpingConnection {
    /** rping.c's {@code enum test_state}: the value is the one rping prints ("state 10"). */
    enum State {
        IDLE, CONNECT_REQUEST, ADDR_RESOLVED, ROUTE_RESOLVED, CONNECTED, RDMA_READ_ADV, RDMA_READ_COMPLETE,
        RDMA_WRITE_ADV, RDMA_WRITE_COMPLETE, DISCONNECTED, ERROR;

        int value() {
            return ordinal() + 1; // IDLE = 1
        }
    }

    /** {@code RPING_SQ_DEPTH}. */
    static final int SQ_DEPTH = 16;
    /** How long one wait of the completion thread lasts before it looks at its stop flag. */
    private static final Duration EVENT_SLICE = Duration.ofMillis(100);

    final Rping.Options options;
    final boolean server;
    private final PrintWriter out;
    private final PrintWriter err;

    /** The connection on the client side, the listener on the server side ({@code cm_id}). */
    CmId cmId;
    /** The connection on the server side ({@code child_cm_id}). */
    volatile CmId child;
    volatile State state = State.IDLE;
    final Semaphore sem = new Semaphore(0);
    /** Ready for another connection request (the persistent server takes them one at a time). */
    final Semaphore acceptReady = new Semaphore(1);

    private Arena arena;
    private Pd pd;
    private CompChannel channel;
    private Cq cq;
    private Qp qp;
    private CmId qpOwner;
    private Mr recvMr;
    private Mr sendMr;
    private Mr rdmaMr;
    private Mr startMr;
    private MemorySegment recvBuf;
    private MemorySegment sendBuf;
    private MemorySegment rdmaBuf;
    private MemorySegment startBuf;
    private RpingData.Info remote;
    private Thread cqThread;
    private volatile boolean stopCqThread;
    private RuntimeException lastFailure;

    RpingConnection(Rping.Options options, PrintWriter out, PrintWriter err) {
        this.options = options;
        this.server = options.server();
        this.out = out;
        this.err = err;
    }

    /** clone_cb: a new control block for the persistent server's new connection. */
    RpingConnection cloneFor(CmId newChild) {
        RpingConnection copy = new RpingConnection(options, out, err);
        copy.cmId = cmId;
        copy.child = newChild;
        copy.state = state;
        return copy;
    }

    void debug(String format, Object... args) {
        if (options.debug() > 0) {
            out.printf(format, args);
            out.flush();
        }
    }

    /** sem_wait; an interrupt (a test giving up on the run) reads as the ERROR state. */
    void semWait() {
        try {
            sem.acquire();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            state = State.ERROR;
        }
    }

    // rping_setup_qp
    int setupQp(CmId id) {
        Context verbs = id.verbs().orElse(null);
        try {
            pd = verbs.allocPd();
        } catch (RuntimeException e) {
            err.println("ibv_alloc_pd failed");
            return errno(e);
        }
        debug("created pd %s%n", pd);
        try {
            channel = verbs.createCompChannel();
        } catch (RuntimeException e) {
            err.println("ibv_create_comp_channel failed");
            return freeQp(errno(e));
        }
        try {
            cq = verbs.createCq(SQ_DEPTH * 2, channel, 0);
        } catch (RuntimeException e) {
            err.println("ibv_create_cq failed");
            return freeQp(errno(e));
        }
        try {
            cq.reqNotify(false);
        } catch (RuntimeException e) {
            err.println("ibv_create_cq failed"); // rping.c says so for ibv_req_notify_cq too
            return freeQp(errno(e));
        }
        int ret = createQp(id);
        return ret != 0 ? freeQp(ret) : 0;
    }

    // rping_create_qp: RC, 16 sends, 2 receives, one SGE each, one CQ for both
    private int createQp(CmId id) {
        QpInitAttr init = new QpInitAttr(QpType.RC, cq, cq, null, new QpCap(SQ_DEPTH, 2, 1, 1, 0), false);
        if (options.selfCreateQp()) {
            return createOwnQp(id, init);
        }
        try {
            qp = id.createQp(pd, init);
            qpOwner = id;
            debug("created qp %s%n", qp);
            return 0;
        } catch (RuntimeException e) {
            err.println(Rping.perror("rdma_create_qp", e));
            return -1;
        }
    }

    /**
     * rping_create_qp with -q: ibv_create_qp on the PD, then INIT by rping itself (P_Key index 0, the
     * id's port, no remote access); the id does not know the QP, so it gets CONNECT_RESPONSE.
     */
    private int createOwnQp(CmId id, QpInitAttr init) {
        try {
            qp = pd.createQp(init);
        } catch (RuntimeException e) {
            err.println(Rping.perror("ibv_create_qp", e));
            return -1;
        }
        qpOwner = null;
        try {
            qp.modify(new QpAttr().qpState(QpState.INIT).pkeyIndex(0).portNum(id.portNum())
                    .qpAccessFlags(EnumSet.noneOf(AccessFlag.class)));
        } catch (RuntimeException e) {
            err.println(Rping.perror("ibv_modify_qp", e));
            return -1; // rping_setup_qp's error path destroys the QP (freeQp)
        }
        debug("created qp %s%n", qp);
        return 0;
    }

    /**
     * rping_self_modify_qp: INIT, RTR, RTS, each with rdma_init_qp_attr's attributes and mask;
     * {@return 0, -1 when rdma_init_qp_attr failed, or ibv_modify_qp's errno}
     *
     * @param id the id whose connection the QP follows
     */
    int selfModifyQp(CmId id) {
        for (QpState state : new QpState[] {QpState.INIT, QpState.RTR, QpState.RTS}) {
            QpAttr attr;
            try {
                attr = id.initQpAttributes(state);
            } catch (RuntimeException e) {
                lastFailure = e;
                return -1;
            }
            try {
                qp.modify(attr);
            } catch (RuntimeException e) {
                lastFailure = e;
                return errno(e);
            }
        }
        return 0;
    }

    /** What rping's perror would print after {@link #selfModifyQp} failed: its errno's text. */
    RuntimeException lastFailure() {
        return lastFailure;
    }

    /** {@return the QP's number: {@code conn_param.qp_num} for -q} */
    int qpNum() {
        return qp.qpNum();
    }

    /** rping_disconnect with -q: the QP to ERR by rping itself (ibv_modify_qp), before rdma_disconnect. */
    int moveOwnQpToError() {
        if (!options.selfCreateQp() || qp == null) {
            return 0;
        }
        try {
            qp.modify(new QpAttr().qpState(QpState.ERR));
            return 0;
        } catch (RuntimeException e) {
            return errno(e);
        }
    }

    // rping_free_qp (also the error path of rping_setup_qp)
    int freeQp(int ret) {
        if (qp != null) {
            try {
                if (qpOwner != null) {
                    qpOwner.destroyQp(); // rdma_create_qp made it, so the id destroys it (rdma_destroy_qp)
                } else {
                    qp.close(); // -q: ibv_destroy_qp
                }
            } catch (RuntimeException ignored) {
                // the id may be gone with its QP already; rping ignores ibv_destroy_qp's result too
            }
            qp = null;
        }
        CmDevices.closeQuietly(cq);
        cq = null;
        CmDevices.closeQuietly(channel);
        channel = null;
        CmDevices.closeQuietly(pd);
        pd = null;
        return ret;
    }

    // rping_setup_buffers
    int setupBuffers() {
        debug("rping_setup_buffers called on cb %s%n", this);
        arena = Arena.ofShared();
        recvBuf = arena.allocate(RpingData.INFO_BYTES, 8);
        sendBuf = arena.allocate(RpingData.INFO_BYTES, 8);
        rdmaBuf = arena.allocate(options.size(), 8);
        EnumSet<AccessFlag> remote = EnumSet.of(AccessFlag.LOCAL_WRITE, AccessFlag.REMOTE_READ, AccessFlag.REMOTE_WRITE);
        try {
            recvMr = register(recvBuf, EnumSet.of(AccessFlag.LOCAL_WRITE), "recv_buf reg_mr failed");
            sendMr = register(sendBuf, EnumSet.noneOf(AccessFlag.class), "send_buf reg_mr failed");
            rdmaMr = register(rdmaBuf, remote, "rdma_buf reg_mr failed");
            if (!server) {
                startBuf = arena.allocate(options.size(), 8);
                startMr = register(startBuf, remote, "start_buf reg_mr failed");
            }
        } catch (RegistrationFailed e) {
            freeBuffers();
            return e.errno;
        }
        debug("allocated & registered buffers...%n");
        return 0;
    }

    private static final class RegistrationFailed extends Exception {
        final int errno;

        RegistrationFailed(int errno) {
            super(null, null, false, false);
            this.errno = errno;
        }
    }

    private Mr register(MemorySegment buffer, EnumSet<AccessFlag> access, String failure) throws RegistrationFailed {
        try {
            return pd.regMr(buffer, access);
        } catch (RuntimeException e) {
            err.println(failure);
            throw new RegistrationFailed(errno(e));
        }
    }

    // rping_free_buffers
    void freeBuffers() {
        debug("rping_free_buffers called on cb %s%n", this);
        for (Mr mr : new Mr[] {recvMr, sendMr, rdmaMr, startMr}) {
            CmDevices.closeQuietly(mr);
        }
        recvMr = sendMr = rdmaMr = startMr = null;
        if (arena != null) {
            arena.close();
            arena = null;
        }
    }

    /** ibv_post_recv of rq_wr: the 16-byte rping_rdma_info receive. */
    int postRecv() {
        try {
            qp.postRecv(RecvWr.of(0, recvMr, 0, RpingData.INFO_BYTES));
            return 0;
        } catch (RuntimeException e) {
            return errno(e);
        }
    }

    /** ibv_post_send of sq_wr: the 16-byte rping_rdma_info SEND, signaled. */
    private int postInfoSend() {
        return postSend(SendWr.send(0, sendMr, 0, RpingData.INFO_BYTES));
    }

    private int postSend(SendWr wr) {
        try {
            qp.postSend(wr);
            return 0;
        } catch (RuntimeException e) {
            int ret = errno(e);
            err.printf("post send error %d%n", ret);
            return ret;
        }
    }

    /** pthread_create(cq_thread). */
    void startCqThread() {
        stopCqThread = false;
        cqThread = Thread.ofPlatform().daemon().name("rping-cq").start(this::cqThreadLoop);
    }

    /**
     * pthread_join(cq_thread): rping's thread ends on its own once the disconnect flushes the receive;
     * a backend that flushes nothing must not hang the tool, so after a grace period it is told to stop.
     */
    void joinCqThread() {
        if (cqThread == null) {
            return;
        }
        try {
            cqThread.join(Duration.ofSeconds(2));
            stopCqThread = true;
            cqThread.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            stopCqThread = true;
        }
        cqThread = null;
    }

    // cq_thread
    private void cqThreadLoop() {
        debug("cq_thread started.%n");
        while (!stopCqThread) {
            Optional<Cq> event;
            try {
                event = channel.getCqEvent(EVENT_SLICE);
            } catch (RuntimeException e) {
                err.println("Failed to get cq event!");
                return;
            }
            if (event.isEmpty()) {
                continue;
            }
            if (event.get() != cq) {
                err.println("Unknown CQ!");
                return;
            }
            try {
                cq.reqNotify(false);
            } catch (RuntimeException e) {
                err.println("Failed to set notify!");
                return;
            }
            int ret = cqEventHandler();
            channel.ackCqEvents(cq, 1);
            if (ret != 0) {
                return;
            }
        }
    }

    // rping_cq_event_handler: returns 1 once a flushed completion was seen, negative on error
    private int cqEventHandler() {
        int flushed = 0;
        WorkCompletion[] wcs = new WorkCompletion[1];
        int ret = 0;
        try {
            while (cq.poll(wcs) == 1) {
                WorkCompletion wc = wcs[0];
                if (wc.status() != WcStatus.SUCCESS) {
                    if (wc.status() == WcStatus.WR_FLUSH_ERR) {
                        flushed = 1;
                        continue;
                    }
                    err.printf("cq completion failed status %d%n", wc.status().value());
                    return error(-1);
                }
                switch (wc.opcode()) {
                    case SEND -> debug("send completion%n");
                    case RDMA_WRITE -> {
                        debug("rdma write completion%n");
                        state = State.RDMA_WRITE_COMPLETE;
                        sem.release();
                    }
                    case RDMA_READ -> {
                        debug("rdma read completion%n");
                        state = State.RDMA_READ_COMPLETE;
                        sem.release();
                    }
                    case RECV -> {
                        debug("recv completion%n");
                        ret = server ? serverRecv(wc) : clientRecv(wc);
                        if (ret != 0) {
                            err.printf("recv wc error: %d%n", ret);
                            return error(ret);
                        }
                        ret = postRecv();
                        if (ret != 0) {
                            err.printf("post recv error: %d%n", ret);
                            return error(ret);
                        }
                        sem.release();
                    }
                    default -> {
                        debug("unknown!!!!! completion%n");
                        return error(-1);
                    }
                }
            }
        } catch (RuntimeException e) {
            err.printf("poll error %d%n", errno(e));
            return error(-1);
        }
        return flushed;
    }

    private int error(int ret) {
        state = State.ERROR;
        sem.release();
        return ret;
    }

    // server_recv
    private int serverRecv(WorkCompletion wc) {
        if (wc.byteLen() != RpingData.INFO_BYTES) {
            err.printf("Received bogus data, size %d%n", wc.byteLen());
            return -1;
        }
        remote = RpingData.Info.readFrom(recvBuf);
        debug("Received rkey %x addr %x len %d from peer%n", remote.rkey(), remote.buf(), remote.size());
        State now = state;
        state = now.value() <= State.CONNECTED.value() || now == State.RDMA_WRITE_COMPLETE
                ? State.RDMA_READ_ADV : State.RDMA_WRITE_ADV;
        return 0;
    }

    // client_recv
    private int clientRecv(WorkCompletion wc) {
        if (wc.byteLen() != RpingData.INFO_BYTES) {
            err.printf("Received bogus data, size %d%n", wc.byteLen());
            return -1;
        }
        state = state == State.RDMA_READ_ADV ? State.RDMA_WRITE_ADV : State.RDMA_WRITE_COMPLETE;
        return 0;
    }

    /** sem_wait, then rping's check of the state it waited for: "wait for STATE state N" when it is another. */
    private boolean reached(State expected) {
        semWait();
        if (state != expected) {
            err.printf("wait for %s state %d%n", expected, state.value());
            return false;
        }
        return true;
    }

    // rping_test_server
    int testServer() {
        int ret;
        while (true) {
            // Wait for client's Start STAG/TO/Len
            if (!reached(State.RDMA_READ_ADV)) {
                ret = -1;
                break;
            }
            debug("server received sink adv%n");
            RpingData.Info source = remote;
            ret = postSend(SendWr.rdmaRead(0, rdmaMr, 0, source.size(), source.buf(), source.rkey()));
            if (ret != 0) {
                break;
            }
            debug("server posted rdma read req %n");
            if (!reached(State.RDMA_READ_COMPLETE)) {
                ret = -1;
                break;
            }
            debug("server received read complete%n");
            if (options.verbose() > 0) {
                out.printf("server ping data: %s%n", RpingData.cString(rdmaBuf));
                out.flush();
            }
            // Tell client to continue (the server's send_buf is never formatted: 16 zero bytes, as rxe's capture shows)
            ret = postInfoSend();
            if (ret != 0) {
                break;
            }
            debug("server posted go ahead%n");
            if (!reached(State.RDMA_WRITE_ADV)) {
                ret = -1;
                break;
            }
            debug("server received sink adv%n");
            RpingData.Info sink = remote;
            // RDMA Write echo data: strlen(rdma_buf) + 1
            int length = RpingData.cString(rdmaBuf).length() + 1;
            if (options.corruptWriteForTest()) {
                rdmaBuf.set(java.lang.foreign.ValueLayout.JAVA_BYTE, 0, (byte) '#'); // length taken first: the echo stays as long
            }
            debug("rdma write from lkey %x laddr %x len %d%n", rdmaMr.lkey(), rdmaMr.address(), length);
            ret = postSend(SendWr.rdmaWrite(0, rdmaMr, 0, length, sink.buf(), sink.rkey()));
            if (ret != 0) {
                break;
            }
            if (!reached(State.RDMA_WRITE_COMPLETE)) {
                ret = -1;
                break;
            }
            debug("server rdma write complete %n");
            ret = postInfoSend();
            if (ret != 0) {
                break;
            }
            debug("server posted go ahead%n");
        }
        return state == State.DISCONNECTED ? 0 : ret;
    }

    // rping_test_client
    int testClient() {
        int ret = 0;
        int start = RpingData.firstStart();
        for (int ping = 0; options.count() == 0 || ping < options.count(); ping++) {
            state = State.RDMA_READ_ADV;
            RpingData.fill(startBuf, options.size(), ping, start);
            start = RpingData.nextStart(start);
            formatSend(startMr);
            ret = postInfoSend();
            if (ret != 0) {
                break;
            }
            // Wait for server to ACK
            if (!reached(State.RDMA_WRITE_ADV)) {
                ret = -1;
                break;
            }
            formatSend(rdmaMr);
            ret = postInfoSend();
            if (ret != 0) {
                break;
            }
            // Wait for the server to say the RDMA Write is complete.
            if (!reached(State.RDMA_WRITE_COMPLETE)) {
                ret = -1;
                break;
            }
            if (options.validate() > 0 && startBuf.mismatch(rdmaBuf) != -1) {
                err.println("data mismatch!");
                ret = -1;
                break;
            }
            if (options.verbose() > 0) {
                out.printf("ping data: %s%n", RpingData.cString(rdmaBuf));
                out.flush();
            }
        }
        return state == State.DISCONNECTED ? 0 : ret;
    }

    // rping_format_send
    private void formatSend(Mr mr) {
        RpingData.Info info = new RpingData.Info(mr.address(), mr.rkey(), options.size());
        info.writeTo(sendBuf);
        debug("RDMA addr %x rkey %x len %d%n", info.buf(), info.rkey(), info.size());
    }

    /** The errno a failed verbs call gives ({@code ret} of the C call), EIO for anything else. */
    static int errno(RuntimeException e) {
        return e instanceof VerbsException v ? v.errno().number() : org.roce4j.verbs.Errno.EIO.number();
    }

}
