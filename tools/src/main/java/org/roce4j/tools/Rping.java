package org.roce4j.tools;

import java.io.PrintWriter;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.IntConsumer;

import org.roce4j.cm.CmEvent;
import org.roce4j.cm.CmEventType;
import org.roce4j.cm.CmId;
import org.roce4j.cm.ConnParam;
import org.roce4j.cm.EventChannel;
import org.roce4j.cm.PortSpace;
import org.roce4j.verbs.Errno;
import org.roce4j.verbs.VerbsException;

/**
 * One run of rdma-core's {@code rping} (librdmacm/examples/rping.c) written against the rdma_cm and
 * Verbs APIs alone: a CM thread handling the id's events ({@code cm_thread} /
 * {@code rping_cma_event_handler}), a completion thread per connection and the main thread walking
 * rping's state machine ({@link RpingConnection}), with rping's lines and exit codes. A CM event
 * that rping answers with {@code exit(ret)} from its CM thread ends the run with that code (255
 * for -1) once the main thread has printed what it prints meanwhile.
 */
final class Rping {
    /**
     * rping's options: {@code -s}/{@code -c}, {@code -a}, {@code -I}, {@code -p}, {@code -C},
     * {@code -S}, {@code -v}, {@code -V}, {@code -d} (debug), {@code -P}, {@code -q}; roce4j's
     * device choice ({@link CmDevices}); and, for tests only, a server that spoils the first byte of
     * what it writes back, so that a test can show the client's -V catching it.
     */
    record Options(boolean server, InetAddress address, InetAddress source, int port, int count, int size, int verbose,
                   int validate, int debug, boolean persistent, boolean selfCreateQp, String device,
                   boolean corruptWriteForTest) {
    }

    /** rping's resolve timeouts: 2000 ms for the address and for the route. */
    static final Duration RESOLVE_TIMEOUT = Duration.ofMillis(2000);
    /** rdma_listen(cm_id, 3). */
    static final int BACKLOG = 3;
    private static final Duration EVENT_SLICE = Duration.ofMillis(100);
    private static final Duration DESTROY_PATIENCE = Duration.ofSeconds(5);

    private final Options options;
    private final PrintWriter out;
    private final PrintWriter err;
    private final CmDevices devices;
    private final IntConsumer listening;

    /** Which control block an id's events go to ({@code cma_id->context} in rping.c). */
    private final Map<CmId, RpingConnection> contexts = new ConcurrentHashMap<>();
    private RpingConnection listeningCb;
    private CmDevices.Selection selection;
    private volatile Integer exitFromCmThread;
    private volatile boolean stopCmThread;

    Rping(Options options, PrintWriter out, PrintWriter err, CmDevices devices, IntConsumer listening) {
        this.options = options;
        this.out = out;
        this.err = err;
        this.devices = devices;
        this.listening = listening;
    }

    /** perror(3): the call's name, then strerror of its errno. */
    static String perror(String call, RuntimeException e) {
        return call + ": " + (e instanceof VerbsException v ? v.errno().text() : e.getMessage());
    }

    /** Runs rping; returns its exit code (what main returns, as the shell sees it: -1 is 255). */
    int run() {
        RpingConnection cb = new RpingConnection(options, out, err);
        listeningCb = cb;
        CmDevices.Opened opened = devices.openOrReport(options.device(), err);
        if (opened == null) {
            return Errno.ENODEV.number();
        }
        selection = opened.selection();
        int ret;
        try (opened) {
            EventChannel channel = opened.channel();
            try {
                cb.cmId = channel.createId(PortSpace.TCP, cb);
            } catch (RuntimeException e) {
                err.println(perror("rdma_create_id", e));
                return 0xFF;
            }
            contexts.put(cb.cmId, cb);
            cb.debug("created cm_id %s%n", cb.cmId);
            Thread cmThread = Thread.ofPlatform().daemon().name("rping-cm").start(() -> cmThread(channel));
            try {
                ret = cb.server ? (options.persistent() ? runPersistentServer(cb) : runServer(cb)) : runClient(cb);
            } finally {
                cb.debug("destroy cm_id %s%n", cb.cmId);
                destroyId(cb.cmId);
                stopCmThread = true; // write(cb->eventfd): tell the CM thread to leave
                joinUninterruptibly(cmThread);
            }
        }
        out.flush();
        Integer exit = exitFromCmThread;
        return (exit != null ? exit : ret) & 0xFF;
    }

    // cm_thread: events until told to stop; a handler's error is exit(ret)
    private void cmThread(EventChannel channel) {
        while (!stopCmThread && exitFromCmThread == null) {
            Optional<CmEvent> next;
            try {
                next = channel.getEvent(EVENT_SLICE);
            } catch (RuntimeException e) {
                err.println(perror("rdma_get_cm_event", e));
                exit(-1);
                return;
            }
            if (next.isEmpty()) {
                continue;
            }
            int ret;
            try (CmEvent event = next.get()) {
                ret = cmaEventHandler(event);
            }
            if (ret != 0) {
                exit(ret);
                return;
            }
        }
    }

    /** rping's CM thread calls exit(ret): the run ends with that code; every waiting thread is woken. */
    private void exit(int ret) {
        exitFromCmThread = ret;
        for (RpingConnection cb : contexts.values()) {
            cb.sem.release();
        }
    }

    // rping_cma_event_handler
    private int cmaEventHandler(CmEvent event) {
        CmId id = event.id();
        RpingConnection cb = event.type() == CmEventType.CONNECT_REQUEST
                ? event.listenId().map(contexts::get).orElse(listeningCb)
                : contexts.getOrDefault(id, listeningCb);
        cb.debug("cma_event type %s cma_id %s (%s)%n", event.type().cName(), id, id == cb.cmId ? "parent" : "child");
        switch (event.type()) {
            case ADDR_RESOLVED -> {
                cb.state = RpingConnection.State.ADDR_RESOLVED;
                try {
                    id.resolveRoute(RESOLVE_TIMEOUT);
                } catch (RuntimeException e) {
                    cb.state = RpingConnection.State.ERROR;
                    err.println(perror("rdma_resolve_route", e));
                    cb.sem.release();
                }
            }
            case ROUTE_RESOLVED -> {
                cb.state = RpingConnection.State.ROUTE_RESOLVED;
                cb.sem.release();
            }
            case CONNECT_REQUEST -> {
                // rping's CM thread blocks here until the (persistent) server has taken the last request;
                // a plain server takes one, so a second request waits until the run ends.
                if (!awaitAcceptReady(cb)) {
                    return 0;
                }
                cb.state = RpingConnection.State.CONNECT_REQUEST;
                cb.child = id;
                contexts.put(id, cb); // the child id starts with its listener's context
                cb.debug("child cma %s%n", id);
                cb.sem.release();
            }
            case CONNECT_RESPONSE -> {
                cb.debug("CONNECT_RESPONSE%n");
                cb.state = RpingConnection.State.CONNECTED;
                cb.sem.release();
            }
            case ESTABLISHED -> {
                cb.debug("ESTABLISHED%n");
                // Server will wake up when first RECV completes.
                if (!cb.server) {
                    cb.state = RpingConnection.State.CONNECTED;
                }
                cb.sem.release();
            }
            case ADDR_ERROR, ROUTE_ERROR, CONNECT_ERROR, UNREACHABLE, REJECTED -> {
                err.printf("cma event %s, error %d%n", event.type().cName(), event.status());
                cb.sem.release();
                return -1;
            }
            case DISCONNECTED -> {
                err.printf("%s DISCONNECT EVENT...%n", cb.server ? "server" : "client");
                cb.state = RpingConnection.State.DISCONNECTED;
                cb.sem.release();
            }
            case DEVICE_REMOVAL -> {
                err.println("cma detected device removal!!!!");
                cb.state = RpingConnection.State.ERROR;
                cb.sem.release();
                return -1;
            }
            default -> err.printf("unhandled event: %s, ignoring%n", event.type().cName());
        }
        return 0;
    }

    /** sem_wait(&cb->accept_ready), given up when the run ends (rping's main would wait for ever to join this thread). */
    private boolean awaitAcceptReady(RpingConnection cb) {
        try {
            while (!cb.acceptReady.tryAcquire(EVENT_SLICE.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS)) {
                if (stopCmThread) {
                    return false;
                }
            }
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    // rping_bind_server
    private int bindServer(RpingConnection cb) {
        try {
            cb.cmId.bindAddr(new InetSocketAddress(options.address(), options.port()));
        } catch (RuntimeException e) {
            err.println(perror("rdma_bind_addr", e));
            return -1;
        }
        cb.debug("rdma_bind_addr successful%n");
        if (deviceMismatch(cb.cmId)) {
            return -1;
        }
        cb.debug("rdma_listen%n");
        try {
            cb.cmId.listen(BACKLOG);
        } catch (RuntimeException e) {
            err.println(perror("rdma_listen", e));
            return -1;
        }
        listening.accept(cb.cmId.localAddress().getPort());
        return 0;
    }

    /** {@code -d NAME}: the id's device must be NAME; a wildcard-bound listener has none yet, so it passes. */
    private boolean deviceMismatch(CmId id) {
        if (id.verbs().isEmpty()) {
            return false;
        }
        Optional<String> mismatch = selection.mismatch(id);
        mismatch.ifPresent(err::println);
        return mismatch.isPresent();
    }

    // rping_run_server
    private int runServer(RpingConnection cb) {
        int ret = bindServer(cb);
        if (ret != 0) {
            return ret;
        }
        cb.semWait();
        if (cb.state != RpingConnection.State.CONNECT_REQUEST) {
            err.printf("wait for CONNECT_REQUEST state %d%n", cb.state.value());
            return -1;
        }
        return serveConnection(cb, true);
    }

    /**
     * The part of rping_run_server after the request (and rping_persistent_server_thread, whose
     * messages differ slightly): QP, buffers, a receive, the completion thread, accept, the loop.
     */
    private int serveConnection(RpingConnection cb, boolean single) {
        if (deviceMismatch(cb.child)) {
            return -1;
        }
        int ret = prepare(cb, cb.child);
        if (ret != 0) {
            return ret;
        }
        ret = accept(cb);
        if (ret != 0) {
            err.printf("connect error %d%n", ret);
            cb.joinCqThread();
            cb.freeBuffers();
            return cb.freeQp(ret);
        }
        ret = cb.testServer();
        if (ret != 0 && single) {
            err.printf("rping server failed: %d%n", ret);
        } else {
            ret = 0;
        }
        disconnect(cb, cb.child);
        cb.joinCqThread();
        // rping destroys the child id first and its QP after (ibv_destroy_qp); here the id owns the
        // QP it made, so the QP goes first, then the id.
        cb.freeBuffers();
        cb.freeQp(0);
        contexts.remove(cb.child);
        destroyId(cb.child);
        return ret;
    }

    /**
     * What rping_run_server and rping_run_client both do before accept/connect: rping_setup_qp,
     * rping_setup_buffers, the first receive, the completion thread; on failure rping's line and
     * what was made freed again.
     */
    private int prepare(RpingConnection cb, CmId id) {
        int ret = cb.setupQp(id);
        if (ret != 0) {
            err.printf("setup_qp failed: %d%n", ret);
            return ret;
        }
        ret = cb.setupBuffers();
        if (ret != 0) {
            err.printf("rping_setup_buffers failed: %d%n", ret);
            return cb.freeQp(ret);
        }
        ret = cb.postRecv();
        if (ret != 0) {
            err.printf("ibv_post_recv failed: %d%n", ret);
            cb.freeBuffers();
            return cb.freeQp(ret);
        }
        cb.startCqThread();
        return 0;
    }

    // rping_accept: rdma_accept(child, NULL) takes responder resources and initiator depth from the
    // request (capped by the device) and retry counts 7 (librdmacm ucma_copy_conn_param_to_kern);
    // rping's client asks for 1 and 1, which is ConnParam.defaults(). With -q rping first moves its own
    // QP to RTS (rping_self_modify_qp) and accepts with rping_init_conn_param's values and its QPN.
    private int accept(RpingConnection cb) {
        cb.debug("accepting client connection request%n");
        ConnParam param = ConnParam.defaults();
        if (options.selfCreateQp()) {
            int ret = cb.selfModifyQp(cb.child);
            if (ret != 0) {
                return ret;
            }
            param = param.withQpNum(cb.qpNum());
        }
        try {
            cb.child.accept(param);
        } catch (RuntimeException e) {
            err.println(perror("rdma_accept", e));
            return -1;
        }
        cb.semWait();
        if (cb.state == RpingConnection.State.ERROR) {
            err.printf("wait for CONNECTED state %d%n", cb.state.value());
            return -1;
        }
        return 0;
    }

    // rping_disconnect: with -q, the QP to ERR first (ibv_modify_qp; its failure is rping's return)
    private void disconnect(RpingConnection cb, CmId id) {
        if (cb.moveOwnQpToError() != 0) {
            return;
        }
        try {
            id.disconnect();
        } catch (RuntimeException ignored) {
            // rping ignores rdma_disconnect's result (the peer may have disconnected first)
        }
    }

    // rping_run_persistent_server: one thread per connection, until the run is interrupted
    private int runPersistentServer(RpingConnection listening) {
        int ret = bindServer(listening);
        if (ret != 0) {
            return ret;
        }
        while (true) {
            listening.semWait();
            if (Thread.currentThread().isInterrupted()) {
                return 0;
            }
            if (listening.state != RpingConnection.State.CONNECT_REQUEST) {
                err.printf("wait for CONNECT_REQUEST state %d%n", listening.state.value());
                return -1;
            }
            RpingConnection cb = listening.cloneFor(listening.child);
            contexts.put(cb.child, cb);
            listening.acceptReady.release();
            Thread.ofPlatform().daemon().name("rping-persistent").start(() -> serveConnection(cb, false));
        }
    }

    // rping_bind_client
    private int bindClient(RpingConnection cb) {
        InetSocketAddress destination = new InetSocketAddress(options.address(), options.port());
        InetSocketAddress source = options.source() == null ? null : new InetSocketAddress(options.source(), 0);
        try {
            cb.cmId.resolveAddr(source, destination, RESOLVE_TIMEOUT);
        } catch (RuntimeException e) {
            err.println(perror("rdma_resolve_addr", e));
            return -1;
        }
        cb.semWait();
        if (cb.state != RpingConnection.State.ROUTE_RESOLVED) {
            err.printf("waiting for addr/route resolution state %d%n", cb.state.value());
            return -1;
        }
        cb.debug("rdma_resolve_addr - rdma_resolve_route successful%n");
        return deviceMismatch(cb.cmId) ? -1 : 0;
    }

    // rping_connect_client
    private int connectClient(RpingConnection cb) {
        try {
            ConnParam param = ConnParam.defaults(); // rping_init_conn_param: 1, 1, retry 7, RNR retry 7
            cb.cmId.connect(options.selfCreateQp() ? param.withQpNum(cb.qpNum()) : param); // -q: conn_param.qp_num
        } catch (RuntimeException e) {
            err.println(perror("rdma_connect", e));
            return -1;
        }
        cb.semWait();
        if (cb.state != RpingConnection.State.CONNECTED) {
            err.printf("wait for CONNECTED state %d%n", cb.state.value());
            return -1;
        }
        if (options.selfCreateQp()) {
            // -q: the id got CONNECT_RESPONSE; rping moves its QP, then rdma_establish sends the RTU.
            int ret = cb.selfModifyQp(cb.cmId);
            if (ret != 0) {
                err.println(perror("rping_modify_qp", cb.lastFailure()));
                return ret;
            }
            try {
                cb.cmId.establish();
            } catch (RuntimeException e) {
                err.println(perror("rdma_establish", e));
                return -1;
            }
        }
        cb.debug("rdma_connect successful%n");
        return 0;
    }

    // rping_run_client
    private int runClient(RpingConnection cb) {
        int ret = bindClient(cb);
        if (ret != 0) {
            return ret;
        }
        ret = prepare(cb, cb.cmId);
        if (ret != 0) {
            return ret;
        }
        ret = connectClient(cb);
        if (ret != 0) {
            err.printf("connect error %d%n", ret);
        } else {
            ret = cb.testClient();
            if (ret != 0) {
                err.printf("rping client failed: %d%n", ret);
            } else {
                ret = 0;
            }
            disconnect(cb, cb.cmId);
        }
        cb.joinCqThread();
        cb.freeBuffers();
        return cb.freeQp(ret);
    }

    /**
     * rdma_destroy_id, which in librdmacm waits until the id's events are acknowledged: the CM
     * thread acknowledges each event once handled, so EBUSY only lasts until it has.
     */
    private void destroyId(CmId id) {
        long deadline = System.nanoTime() + DESTROY_PATIENCE.toNanos();
        while (true) {
            try {
                id.close();
                return;
            } catch (VerbsException e) {
                if (e.errno() != Errno.EBUSY || System.nanoTime() > deadline) {
                    return;
                }
                try {
                    Thread.sleep(10);
                } catch (InterruptedException interrupted) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
    }

    private static void joinUninterruptibly(Thread thread) {
        boolean interrupted = false;
        while (thread.isAlive()) {
            try {
                thread.join();
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }
}
