package org.roce4j.tools;

import java.io.PrintWriter;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.EnumSet;
import java.util.function.IntConsumer;

import org.roce4j.cm.CmEvent;
import org.roce4j.cm.CmId;
import org.roce4j.cm.ConnParam;
import org.roce4j.cm.PortSpace;
import org.roce4j.cm.UdParam;
import org.roce4j.verbs.Context;
import org.roce4j.verbs.Errno;
import org.roce4j.verbs.QpAttrMask;
import org.roce4j.verbs.WorkCompletion;

/**
 * One run of librdmacm's {@code udaddy} (librdmacm/examples/udaddy.c) against the rdma_cm and Verbs
 * APIs alone: UD ids in the UDP port space, resolved with SIDR (the SIDR_REQ/SIDR_REP of
 * {@code rdma_connect}/{@code rdma_accept}), then {@code -C} UD SENDs with immediate data (the
 * sender's QPN) from the client, answered by as many from the server, which finds its way back from
 * the first receive's GRH ({@code ibv_create_ah_from_wc}). Single-threaded, as udaddy is; the same
 * lines on stdout and its return status as the exit code.
 */
final class Udaddy extends CmatestRun {
    /**
     * udaddy's options: {@code -s} server address (this side is the client), {@code -b} bind address,
     * {@code -c} connections, {@code -C} message count, {@code -S} message size, {@code -p} port space;
     * and roce4j's {@code --port} (udaddy always uses 7174) and device choice.
     */
    record Options(InetAddress server, InetAddress bind, int connections, int messageCount, int messageSize,
                   PortSpace portSpace, int port, String device) {
    }

    private final Options options;
    private final IntConsumer listening;
    private int connIndex;

    Udaddy(Options options, PrintWriter out, PrintWriter err, CmDevices devices, IntConsumer listening) {
        super("udaddy", options.connections(), options.messageCount(), options.messageSize(), options.device(), out, err,
                devices);
        this.options = options;
        this.listening = listening;
    }

    @Override
    boolean createsIds() {
        return options.server() != null;
    }

    @Override
    PortSpace portSpace() {
        return options.portSpace();
    }

    @Override
    int runRole() {
        return options.server() != null ? runClient() : runServer();
    }

    // post_sends: SEND with immediate, the immediate being this QP's number
    private int postSends(CmatestNode node, boolean signaled) {
        if (!node.connected || messageCount == 0) {
            return 0;
        }
        return postSends(node, signaled, false);
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

    // route_handler
    private int routeHandler(CmatestNode node) {
        int ret = prepareNode(node, true);
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
            ret = prepareNode(node, true);
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

    // resolved_handler: the SIDR reply's QPN, Q_Key and address vector
    private int resolvedHandler(CmatestNode node, CmEvent event) {
        UdParam ud = event.ud().orElse(null);
        if (ud == null) {
            out.println("udaddy: failure creating address handle");
            connectError();
            return -1;
        }
        return reach(node, ud);
    }

    @Override
    int cmaHandler(CmEvent event) {
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

    /** poll_cqs' step of udaddy's: the first receive gives the way back. */
    @Override
    int received(CmatestNode node, WorkCompletion[] wc, int count) {
        if (count > 0 && node.ah == null && createReplyAh(node, wc[0]) != 0) {
            out.println("udaddy: failed to create reply AH");
            return -1;
        }
        return 0;
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
            if (resolveAddr(node, source, destination, "udaddy: failure getting addr") != 0) {
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
