package org.roce4j.tools;

import java.io.PrintWriter;
import java.lang.foreign.Arena;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Optional;

import org.roce4j.cm.CmEvent;
import org.roce4j.cm.CmId;
import org.roce4j.cm.EventChannel;
import org.roce4j.cm.PortSpace;
import org.roce4j.cm.UdParam;
import org.roce4j.verbs.SendWr;
import org.roce4j.verbs.VerbsException;
import org.roce4j.verbs.WorkCompletion;

/**
 * What librdmacm's UD examples (udaddy.c, mckey.c) share of their run but for the program's name in
 * their messages: main's frame (open the device, alloc_nodes, run, "test complete", destroy_nodes,
 * "return status N"), connect_events, the address handle from a resolved peer, post_sends' loop and
 * poll_cqs. Each tool's event handlers and roles stay in {@link Udaddy} and {@link McKey}.
 */
abstract class CmatestRun {
    static final Duration RESOLVE_TIMEOUT = Duration.ofMillis(2000);
    private static final Duration EVENT_SLICE = Duration.ofMillis(100);

    final String tool;
    final int messageSize;
    final PrintWriter out;
    final PrintWriter err;
    final CmatestNode[] nodes;
    int messageCount;
    int connectsLeft;
    EventChannel channel;
    private final String device;
    private final CmDevices devices;
    private CmDevices.Selection selection;
    private final Arena arena = Arena.ofShared();

    CmatestRun(String tool, int connections, int messageCount, int messageSize, String device, PrintWriter out,
               PrintWriter err, CmDevices devices) {
        this.tool = tool;
        this.nodes = new CmatestNode[connections];
        this.messageCount = messageCount;
        this.messageSize = messageSize;
        this.device = device;
        this.out = out;
        this.err = err;
        this.devices = devices;
    }

    /** Whether alloc_nodes gives every node its id up front (a udaddy server gets them from CONNECT_REQUESTs). */
    abstract boolean createsIds();

    /** run_server / run_client / mckey's run: the return status. */
    abstract int runRole();

    /** cma_handler. */
    abstract int cmaHandler(CmEvent event);

    /** Runs the tool; returns its exit code (main's {@code return ret}, as the shell sees it). */
    final int run() {
        connectsLeft = nodes.length;
        CmDevices.Opened opened = devices.openOrReport(device, err);
        if (opened == null) {
            return 1;
        }
        int ret;
        try (opened; arena) {
            channel = opened.channel();
            selection = opened.selection();
            for (int i = 0; i < nodes.length; i++) {
                nodes[i] = new CmatestNode(i);
                if (createsIds()) {
                    try {
                        nodes[i].cmaId = channel.createId(portSpace(), nodes[i]);
                    } catch (RuntimeException e) {
                        return 1; // alloc_nodes failed: exit(1)
                    }
                }
            }
            ret = runRole();
            out.println("test complete");
            for (CmatestNode node : nodes) {
                node.destroy();
            }
        }
        out.printf("return status %d%n", ret);
        out.flush();
        return ret & 0xFF;
    }

    /** The port space of the tool's ids ({@code -p}). */
    abstract PortSpace portSpace();

    static CmatestNode nodeOf(CmId id) {
        return id.context() instanceof CmatestNode node ? node : null;
    }

    /** init_node; create_message's {@code message_count = 0} for messages of 0 bytes. */
    private int initNode(CmatestNode node) {
        int ret = node.initNode(tool, messageCount, messageSize, arena, out, err);
        if (messageSize == 0) {
            messageCount = 0;
        }
        return ret;
    }

    /**
     * What a node needs before it can take part: {@code -d NAME}'s check (the id's device must be NAME;
     * otherwise a line saying whose address it is, and -1), verify_test_params, init_node and, for a
     * node that {@code receives}, post_recvs.
     */
    final int prepareNode(CmatestNode node, boolean receives) {
        Optional<String> mismatch = selection.mismatch(node.cmaId);
        mismatch.ifPresent(out::println);
        int ret = mismatch.isPresent() ? -1 : node.verifyTestParams(tool, messageCount, messageSize, out);
        if (ret == 0) {
            ret = initNode(node);
        }
        return ret == 0 && receives ? node.postRecvs(messageCount, messageSize, out) : ret;
    }

    final void connectError() {
        connectsLeft--;
    }

    /** The peer a resolved id names (udaddy's SIDR reply, mckey's join): its QPN, Q_Key and address handle. */
    final int reach(CmatestNode node, UdParam peer) {
        node.remoteQpn = peer.qpNum();
        node.remoteQkey = peer.qkey();
        try {
            node.ah = node.pd.createAh(peer.ahAttr());
        } catch (RuntimeException e) {
            out.println(tool + ": failure creating address handle");
            connectError();
            return -1;
        }
        node.connected = true;
        connectsLeft--;
        return 0;
    }

    /**
     * post_sends: {@code message_count} SENDs with immediate (this QP's number) to the node's peer;
     * with {@code signalLast} the last one signaled whatever {@code signaled} says.
     */
    final int postSends(CmatestNode node, boolean signaled, boolean signalLast) {
        int qpNum = node.cmaId.qp().orElseThrow().qpNum();
        SendWr wr = SendWr.sendWithImm(node.id, node.mr, 0, messageSize, qpNum)
                .signaled(signaled).ud(node.ah, node.remoteQpn, node.remoteQkey);
        for (int i = 0; i < messageCount; i++) {
            try {
                node.cmaId.qp().orElseThrow().postSend(signalLast && i == messageCount - 1 ? wr.signaled(true) : wr);
            } catch (VerbsException e) {
                out.printf("failed to post sends: %d%n", e.errno().number());
                return e.errno().number();
            }
        }
        return 0;
    }

    /** rdma_resolve_addr for one node; perror's line and -1 when it fails at once. */
    final int resolveAddr(CmatestNode node, InetSocketAddress source, InetSocketAddress destination, String failure) {
        try {
            node.cmaId.resolveAddr(source, destination, RESOLVE_TIMEOUT);
            return 0;
        } catch (RuntimeException e) {
            out.flush();
            err.println(Rping.perror(failure, e));
            connectError();
            return -1;
        }
    }

    // connect_events: rdma_get_cm_event blocks; here in slices, so that an interrupt ends the wait
    final int connectEvents() {
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

    /** The next event on the channel, waiting at most one slice (cma_thread's wait, interruptible). */
    final Optional<CmEvent> nextEvent() {
        return channel.getEvent(EVENT_SLICE);
    }

    /**
     * What a tool does with a batch of completions poll_cqs took (udaddy's server makes its reply
     * address handle from the first); 0 to go on, anything else ends the polling with -1.
     */
    int received(CmatestNode node, WorkCompletion[] wc, int count) {
        return 0;
    }

    // poll_cqs: busy polling, as the examples do, until message_count completions per connected node
    final int pollCqs() {
        WorkCompletion[] wc = new WorkCompletion[8];
        for (CmatestNode node : nodes) {
            if (!node.connected) {
                continue;
            }
            for (int done = 0; done < messageCount; ) {
                if (Thread.currentThread().isInterrupted()) {
                    out.println(tool + ": failed polling CQ: interrupted");
                    return -1;
                }
                int ret;
                try {
                    ret = node.cq.poll(wc);
                } catch (RuntimeException e) {
                    out.printf("%s: failed polling CQ: %d%n", tool, -1);
                    return -1;
                }
                if (received(node, wc, ret) != 0) {
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
}
