package org.roce4j.tools;

import java.io.PrintWriter;
import java.lang.foreign.Arena;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.EnumSet;
import java.util.Optional;
import java.util.function.IntConsumer;

import org.roce4j.cm.CmEvent;
import org.roce4j.cm.CmId;
import org.roce4j.cm.ConnParam;
import org.roce4j.cm.EventChannel;
import org.roce4j.cm.PortSpace;
import org.roce4j.cm.UdParam;
import org.roce4j.verbs.Context;
import org.roce4j.verbs.Errno;
import org.roce4j.verbs.QpAttrMask;
import org.roce4j.verbs.SendWr;
import org.roce4j.verbs.VerbsException;
import org.roce4j.verbs.WorkCompletion;

/**
 * One run of librdmacm's {@code udaddy} (librdmacm/examples/udaddy.c) against the rdma_cm and Verbs
 * APIs alone: UD ids in the UDP port space, resolved with SIDR (the SIDR_REQ/SIDR_REP of
 * {@code rdma_connect}/{@code rdma_accept}), then {@code -C} UD SENDs with immediate data (the
 * sender's QPN) from the client, answered by as many from the server, which finds its way back from
 * the first receive's GRH ({@code ibv_create_ah_from_wc}). Single-threaded, as udaddy is; the same
 * lines on stdout and its return status as the exit code.
 */
final class Udaddy {
    /**
     * udaddy's options: {@code -s} server address (this side is the client), {@code -b} bind address,
     * {@code -c} connections, {@code -C} message count, {@code -S} message size, {@code -p} port space;
     * and roce4j's {@code --port} (udaddy always uses 7174) and device choice.
     */
    record Options(InetAddress server, InetAddress bind, int connections, int messageCount, int messageSize,
                   PortSpace portSpace, int port, String device) {
    }

    private static final Duration RESOLVE_TIMEOUT = Duration.ofMillis(2000);
    private static final Duration EVENT_SLICE = Duration.ofMillis(100);

    private final Options options;
    private final PrintWriter out;
    private final PrintWriter err;
    private final CmDevices devices;
    private final IntConsumer listening;
    private final CmatestNode[] nodes;
    private int messageCount;
    private int connIndex;
    private int connectsLeft;
    private EventChannel channel;
    private CmDevices.Selection selection;
    private final Arena arena = Arena.ofShared();

    Udaddy(Options options, PrintWriter out, PrintWriter err, CmDevices devices, IntConsumer listening) {
        this.options = options;
        this.out = out;
        this.err = err;
        this.devices = devices;
        this.listening = listening;
        this.nodes = new CmatestNode[options.connections()];
        this.messageCount = options.messageCount();
    }

    /** Runs udaddy; returns its exit code (main's {@code return ret}, as the shell sees it). */
    int run() {
        connectsLeft = options.connections();
        CmDevices.Opened opened = devices.openOrReport(options.device(), err);
        if (opened == null) {
            return 1;
        }
        int ret;
        try (opened; arena) {
            channel = opened.channel();
            selection = opened.selection();
            for (int i = 0; i < nodes.length; i++) {
                nodes[i] = new CmatestNode(i);
                if (options.server() != null) {
                    try {
                        nodes[i].cmaId = channel.createId(options.portSpace(), nodes[i]);
                    } catch (RuntimeException e) {
                        return 1; // alloc_nodes failed: exit(1)
                    }
                }
            }
            ret = options.server() != null ? runClient() : runServer();
            out.println("test complete");
            for (CmatestNode node : nodes) {
                node.destroy();
            }
        }
        out.printf("return status %d%n", ret);
        out.flush();
        return ret & 0xFF;
    }

    private CmatestNode nodeOf(CmId id) {
        return id.context() instanceof CmatestNode node ? node : null;
    }

    /** init_node; create_message's {@code message_count = 0} for messages of 0 bytes. */
    private int initNode(CmatestNode node) {
        int ret = node.initNode("udaddy", messageCount, options.messageSize(), arena, out, err);
        if (options.messageSize() == 0) {
            messageCount = 0;
        }
        return ret;
    }

    // post_sends: SEND with immediate, the immediate being this QP's number
    private int postSends(CmatestNode node, boolean signaled) {
        if (!node.connected || messageCount == 0) {
            return 0;
        }
        int qpNum = node.cmaId.qp().orElseThrow().qpNum();
        SendWr wr = SendWr.sendWithImm(node.id, node.mr, 0, options.messageSize(), qpNum)
                .signaled(signaled).ud(node.ah, node.remoteQpn, node.remoteQkey);
        for (int i = 0; i < messageCount; i++) {
            try {
                node.cmaId.qp().orElseThrow().postSend(wr);
            } catch (VerbsException e) {
                out.printf("failed to post sends: %d%n", e.errno().number());
                return e.errno().number();
            }
        }
        return 0;
    }

    private void connectError() {
        connectsLeft--;
    }

    // addr_handler
    private int addrHandler(CmatestNode node) {
        try {
            node.cmaId.resolveRoute(RESOLVE_TIMEOUT);
            return 0;
        } catch (RuntimeException e) {
            err.println(Rping.perror("udaddy: resolve route failed", e));
            connectError();
            return -1;
        }
    }

    /** What route_handler and connect_handler both do first: verify_test_params, init_node, post_recvs (and -d NAME's check). */
    private int prepareNode(CmatestNode node) {
        int ret = deviceCheck(node.cmaId);
        if (ret == 0) {
            ret = node.verifyTestParams("udaddy", messageCount, options.messageSize(), out);
        }
        if (ret == 0) {
            ret = initNode(node);
        }
        return ret == 0 ? node.postRecvs(messageCount, options.messageSize(), out) : ret;
    }

    // route_handler
    private int routeHandler(CmatestNode node) {
        int ret = prepareNode(node);
        if (ret == 0) {
            try {
                node.cmaId.connect(new ConnParam(null, 0, 0, 0, 0, 0, false, 0)); // memset(&conn_param, 0)
                return 0;
            } catch (RuntimeException e) {
                err.println(Rping.perror("udaddy: failure connecting", e));
                ret = -1;
            }
        }
        connectError();
        return ret;
    }

    // connect_handler
    private int connectHandler(CmId cmaId) {
        int ret;
        if (connIndex == options.connections()) {
            ret = -Errno.ENOMEM.number();
        } else {
            CmatestNode node = nodes[connIndex++];
            node.cmaId = cmaId;
            ret = prepareNode(node);
            if (ret == 0) {
                int qpNum = cmaId.qp().orElseThrow().qpNum();
                try {
                    cmaId.accept(new ConnParam(null, 0, 0, 0, 0, 0, false, qpNum));
                    node.connected = true;
                    connectsLeft--;
                    return 0;
                } catch (RuntimeException e) {
                    err.println(Rping.perror("udaddy: failure accepting", e));
                    ret = -1;
                }
            }
            node.cmaId = null;
            connectError();
        }
        out.println("udaddy: failing connection request");
        try {
            cmaId.reject(null);
        } catch (RuntimeException ignored) {
            // udaddy ignores rdma_reject's result
        }
        return ret;
    }

    /** {@code -d NAME}: the id's device must be NAME; otherwise a line saying whose address it is, and -1. */
    private int deviceCheck(CmId id) {
        Optional<String> mismatch = selection.mismatch(id);
        mismatch.ifPresent(out::println);
        return mismatch.isPresent() ? -1 : 0;
    }

    // resolved_handler: the SIDR reply's QPN, Q_Key and address vector
    private int resolvedHandler(CmatestNode node, CmEvent event) {
        UdParam ud = event.ud().orElse(null);
        if (ud == null) {
            out.println("udaddy: failure creating address handle");
            connectError();
            return -1;
        }
        node.remoteQpn = ud.qpNum();
        node.remoteQkey = ud.qkey();
        try {
            node.ah = node.pd.createAh(ud.ahAttr());
        } catch (RuntimeException e) {
            out.println("udaddy: failure creating address handle");
            connectError();
            return -1;
        }
        node.connected = true;
        connectsLeft--;
        return 0;
    }

    // cma_handler
    private int cmaHandler(CmEvent event) {
        CmId id = event.id();
        return switch (event.type()) {
            case ADDR_RESOLVED -> addrHandler(nodeOf(id));
            case ROUTE_RESOLVED -> routeHandler(nodeOf(id));
            case CONNECT_REQUEST -> connectHandler(id);
            case ESTABLISHED -> resolvedHandler(nodeOf(id), event);
            case ADDR_ERROR, ROUTE_ERROR, CONNECT_ERROR, UNREACHABLE, REJECTED -> {
                out.printf("udaddy: event: %s, error: %d%n", event.type().cName(), event.status());
                connectError();
                yield event.status();
            }
            default -> 0; // DEVICE_REMOVAL: cleanup will occur after test completes
        };
    }

    // create_reply_ah: the way back from the first receive, the peer's QPN from its immediate data
    private int createReplyAh(CmatestNode node, WorkCompletion wc) {
        Context verbs = node.cmaId.verbs().orElseThrow();
        try {
            node.ah = node.pd.createAh(ReplyAddressVector.fromWc(verbs, node.cmaId.portNum(), wc, node.mem));
            node.remoteQpn = wc.immData();
            node.remoteQkey = node.cmaId.qp().orElseThrow().query(EnumSet.of(QpAttrMask.QKEY)).qkey();
            return 0;
        } catch (ReplyAddressVector.NoReply | RuntimeException e) {
            return -1;
        }
    }

    // poll_cqs: busy polling, as udaddy does, until message_count completions per connected node
    private int pollCqs() {
        WorkCompletion[] wc = new WorkCompletion[8];
        for (CmatestNode node : nodes) {
            if (!node.connected) {
                continue;
            }
            for (int done = 0; done < messageCount; ) {
                if (Thread.currentThread().isInterrupted()) {
                    out.println("udaddy: failed polling CQ: interrupted");
                    return -1;
                }
                int ret;
                try {
                    ret = node.cq.poll(wc);
                } catch (RuntimeException e) {
                    out.printf("udaddy: failed polling CQ: %d%n", -1);
                    return -1;
                }
                if (ret > 0 && node.ah == null && createReplyAh(node, wc[0]) != 0) {
                    out.println("udaddy: failed to create reply AH");
                    return -1;
                }
                if (ret == 0) {
                    Thread.onSpinWait();
                }
                done += ret;
            }
        }
        return 0;
    }

    // connect_events: rdma_get_cm_event blocks; here in slices, so that an interrupt ends the wait
    private int connectEvents() {
        int ret = 0;
        while (connectsLeft > 0 && ret == 0) {
            if (Thread.currentThread().isInterrupted()) {
                return -1;
            }
            Optional<CmEvent> next = channel.getEvent(EVENT_SLICE);
            if (next.isPresent()) {
                try (CmEvent event = next.get()) {
                    ret = cmaHandler(event);
                }
            }
        }
        return ret;
    }

    // run_server
    private int runServer() {
        out.println("udaddy: starting server");
        CmId listenId;
        try {
            listenId = channel.createId(options.portSpace(), this);
        } catch (RuntimeException e) {
            err.println(Rping.perror("udaddy: listen request failed", e));
            return -1;
        }
        int ret;
        try {
            InetAddress bind = options.bind() != null ? options.bind() : InetAddress.getByAddress(new byte[4]);
            try {
                listenId.bindAddr(new InetSocketAddress(bind, options.port()));
            } catch (RuntimeException e) {
                err.println(Rping.perror("udaddy: bind address failed", e));
                return -1;
            }
            try {
                listenId.listen(0);
            } catch (RuntimeException e) {
                err.println(Rping.perror("udaddy: failure trying to listen", e));
                return -1;
            }
            out.flush();
            listening.accept(listenId.localAddress().getPort());
            connectEvents();
            ret = 0;
            if (messageCount != 0) {
                out.println("receiving data transfers");
                ret = pollCqs();
                if (ret != 0) {
                    return ret;
                }
                out.println("sending replies");
                for (CmatestNode node : nodes) {
                    ret = postSends(node, true);
                    if (ret != 0) {
                        return ret;
                    }
                }
                ret = pollCqs();
                if (ret != 0) {
                    return ret;
                }
                out.println("data transfers complete");
            }
        } catch (java.net.UnknownHostException impossible) {
            throw new AssertionError(impossible);
        } finally {
            CmDevices.closeQuietly(listenId);
        }
        return ret;
    }

    // run_client
    private int runClient() {
        out.println("udaddy: starting client");
        InetSocketAddress source = options.bind() == null ? null : new InetSocketAddress(options.bind(), 0);
        InetSocketAddress destination = new InetSocketAddress(options.server(), options.port());
        out.println("udaddy: connecting");
        for (CmatestNode node : nodes) {
            try {
                node.cmaId.resolveAddr(source, destination, RESOLVE_TIMEOUT);
            } catch (RuntimeException e) {
                out.flush();
                err.println(Rping.perror("udaddy: failure getting addr", e));
                connectError();
                return -1;
            }
        }
        int ret = connectEvents();
        if (ret != 0) {
            return ret;
        }
        if (messageCount != 0) {
            out.println("initiating data transfers");
            for (CmatestNode node : nodes) {
                ret = postSends(node, false);
                if (ret != 0) {
                    return ret;
                }
            }
            out.println("receiving data transfers");
            ret = pollCqs();
            if (ret != 0) {
                return ret;
            }
            out.println("data transfers complete");
        }
        return 0;
    }

}
