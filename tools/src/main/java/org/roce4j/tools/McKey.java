package org.roce4j.tools;

import java.io.PrintWriter;
import java.lang.foreign.Arena;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Optional;
import java.util.function.IntConsumer;

import org.roce4j.cm.CmEvent;
import org.roce4j.cm.CmEventType;
import org.roce4j.cm.EventChannel;
import org.roce4j.cm.MulticastJoinFlag;
import org.roce4j.cm.PortSpace;
import org.roce4j.cm.UdParam;
import org.roce4j.verbs.SendWr;
import org.roce4j.verbs.VerbsException;
import org.roce4j.verbs.WorkCompletion;

/**
 * One run of librdmacm's {@code mckey} (librdmacm/examples/mckey.c) against the rdma_cm and Verbs APIs
 * alone: each node's UD id resolves its address towards the group ({@code rdma_resolve_addr(id, bind,
 * group)}), makes its QP, posts its receives (a receiver), joins the group ({@code rdma_join_multicast_ex},
 * send-only with {@code -o}) and on MULTICAST_JOIN makes the address handle to the group; after mckey's
 * pause a sender posts {@code -C} unsignaled UD SENDs with immediate data (its QPN) to QPN 0xFFFFFF, a
 * receiver polls for as many completions; then every node leaves. The same lines on stdout and its
 * return status as the exit code.
 */
final class McKey {
    /**
     * mckey's options: {@code -m} the group, {@code -b} bind address, {@code -s} sender, {@code -c} nodes,
     * {@code -C} message count, {@code -S} message size, {@code -p} port space, {@code -o} send-only join;
     * and roce4j's {@code --settle} (mckey's fixed 3 s pause) and device choice.
     */
    record Options(InetAddress group, InetAddress bind, boolean sender, int connections, int messageCount,
                   int messageSize, PortSpace portSpace, boolean sendOnly, Duration settle, String device) {
    }

    private static final Duration RESOLVE_TIMEOUT = Duration.ofMillis(2000);
    private static final Duration EVENT_SLICE = Duration.ofMillis(100);
    private static final Duration LAST_SEND_PATIENCE = Duration.ofSeconds(5);

    private final Options options;
    private final PrintWriter out;
    private final PrintWriter err;
    private final CmDevices devices;
    private final IntConsumer joined;
    private final CmatestNode[] nodes;
    private final InetSocketAddress group;
    private int messageCount;
    private int connectsLeft;
    private EventChannel channel;
    private CmDevices.Selection selection;
    private final Arena arena = Arena.ofShared();

    /**
     * @param joined told (with 0) once every node has joined, before mckey's pause: a test starts the
     *               sender then, where a person starts it after the receiver printed its joined line
     */
    McKey(Options options, PrintWriter out, PrintWriter err, CmDevices devices, IntConsumer joined) {
        this.options = options;
        this.out = out;
        this.err = err;
        this.devices = devices;
        this.joined = joined;
        this.nodes = new CmatestNode[options.connections()];
        this.messageCount = options.messageCount();
        this.group = new InetSocketAddress(options.group(), 0);
    }

    /** Runs mckey; returns its exit code (main's {@code return ret}, as the shell sees it). */
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
                try {
                    nodes[i].cmaId = channel.createId(options.portSpace(), nodes[i]);
                } catch (RuntimeException e) {
                    return 1; // alloc_nodes failed: exit(1)
                }
            }
            ret = runNodes();
            out.println("test complete");
            for (CmatestNode node : nodes) {
                node.destroy();
            }
        }
        out.printf("return status %d%n", ret);
        out.flush();
        return ret & 0xFF;
    }

    /** init_node; create_message's {@code message_count = 0} for messages of 0 bytes. */
    private int initNode(CmatestNode node) {
        int ret = node.initNode("mckey", messageCount, options.messageSize(), arena, out, err);
        if (options.messageSize() == 0) {
            messageCount = 0;
        }
        return ret;
    }

    /**
     * post_sends: unsignaled SENDs with immediate (the sender's QPN) to the group. mckey leaves and
     * destroys the QP right after posting, and on rxe the SENDs are out by then (rxe_mckey_multicast.pcap:
     * all of them, then the IGMP leaves); an emulated QP drops what it has not sent when it is destroyed,
     * so here the last SEND is signaled and its completion awaited. The frames are the same.
     */
    private int postSends(CmatestNode node) {
        if (!node.connected || messageCount == 0) {
            return 0;
        }
        int qpNum = node.cmaId.qp().orElseThrow().qpNum();
        SendWr wr = SendWr.sendWithImm(node.id, node.mr, 0, options.messageSize(), qpNum)
                .signaled(false).ud(node.ah, node.remoteQpn, node.remoteQkey);
        for (int i = 0; i < messageCount; i++) {
            try {
                node.cmaId.qp().orElseThrow().postSend(i == messageCount - 1 ? wr.signaled(true) : wr);
            } catch (VerbsException e) {
                out.printf("failed to post sends: %d%n", e.errno().number());
                return e.errno().number();
            }
        }
        return awaitLastSend(node);
    }

    private int awaitLastSend(CmatestNode node) {
        long deadline = System.nanoTime() + LAST_SEND_PATIENCE.toNanos();
        while (System.nanoTime() < deadline && !Thread.currentThread().isInterrupted()) {
            try {
                if (!node.cq.poll(1).isEmpty()) {
                    return 0;
                }
            } catch (RuntimeException e) {
                return -1;
            }
            Thread.onSpinWait();
        }
        return 0; // as mckey: whatever became of the sends, the run goes on to leave
    }

    private void connectError() {
        connectsLeft--;
    }

    // addr_handler (with -d NAME's check first)
    private int addrHandler(CmatestNode node) {
        Optional<String> mismatch = selection.mismatch(node.cmaId);
        mismatch.ifPresent(out::println);
        int ret = mismatch.isPresent() ? -1 : node.verifyTestParams("mckey", messageCount, options.messageSize(), out);
        if (ret == 0) {
            ret = initNode(node);
        }
        if (ret == 0 && !options.sender()) {
            ret = node.postRecvs(messageCount, options.messageSize(), out);
        }
        if (ret == 0) {
            try {
                node.cmaId.joinMulticast(group, options.sendOnly() ? MulticastJoinFlag.SENDONLY_FULLMEMBER
                        : MulticastJoinFlag.FULLMEMBER, node);
                return 0;
            } catch (RuntimeException e) {
                out.flush();
                err.println(Rping.perror("mckey: failure joining", e));
                ret = -1;
            }
        }
        connectError();
        return ret;
    }

    // join_handler
    private int joinHandler(CmatestNode node, UdParam param) {
        out.printf("mckey: joined dgid: %s mlid 0x%x sl %d%n", PingpongAddress.gidText(param.ahAttr().dgid()), 0,
                param.ahAttr().sl()); // on RoCE the MLID is 0 (cma_iboe_join_multicast's record has none)
        node.remoteQpn = param.qpNum();
        node.remoteQkey = param.qkey();
        try {
            node.ah = node.pd.createAh(param.ahAttr());
        } catch (RuntimeException e) {
            out.println("mckey: failure creating address handle");
            connectError();
            return -1;
        }
        node.connected = true;
        connectsLeft--;
        return 0;
    }

    // cma_handler
    private int cmaHandler(CmEvent event) {
        CmatestNode node = event.id().context() instanceof CmatestNode n ? n : null;
        return switch (event.type()) {
            case ADDR_RESOLVED -> addrHandler(node);
            case MULTICAST_JOIN -> joinHandler(node, event.ud().orElseThrow());
            case ADDR_ERROR, ROUTE_ERROR, MULTICAST_ERROR -> {
                out.printf("mckey: event: %s, error: %d%n", event.type().cName(), event.status());
                connectError();
                yield event.status();
            }
            default -> 0; // DEVICE_REMOVAL: cleanup will occur after test completes
        };
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

    /** cma_thread: after the joins, the events that still come are printed and acknowledged. */
    private Thread startEventThread() {
        return Thread.ofVirtual().name("mckey-cma").start(() -> {
            while (!Thread.currentThread().isInterrupted()) {
                Optional<CmEvent> next;
                try {
                    next = channel.getEvent(EVENT_SLICE);
                } catch (RuntimeException closed) {
                    return;
                }
                next.ifPresent(event -> {
                    try (event) {
                        if (event.type() == CmEventType.MULTICAST_ERROR || event.type() == CmEventType.ADDR_CHANGE) {
                            out.printf("mckey: event: %s, status: %d%n", event.type().cName(), event.status());
                        }
                    }
                });
            }
        });
    }

    // poll_cqs: busy polling, as mckey does, until message_count completions per connected node
    private int pollCqs() {
        WorkCompletion[] wc = new WorkCompletion[8];
        for (CmatestNode node : nodes) {
            if (!node.connected) {
                continue;
            }
            for (int done = 0; done < messageCount; ) {
                if (Thread.currentThread().isInterrupted()) {
                    out.println("mckey: failed polling CQ: interrupted");
                    return -1;
                }
                int ret;
                try {
                    ret = node.cq.poll(wc);
                } catch (RuntimeException e) {
                    out.printf("mckey: failed polling CQ: %d%n", -1);
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

    // run
    private int runNodes() {
        out.println(options.sender() ? "mckey: starting client" : "mckey: starting server");
        InetSocketAddress source = options.bind() == null ? null : new InetSocketAddress(options.bind(), 0);
        out.println("mckey: joining");
        for (CmatestNode node : nodes) {
            if (source != null) {
                try {
                    node.cmaId.bindAddr(source);
                } catch (RuntimeException e) {
                    out.flush();
                    err.println(Rping.perror("mckey: addr bind failure", e));
                    connectError();
                    return -1;
                }
            }
            try {
                node.cmaId.resolveAddr(source, group, RESOLVE_TIMEOUT);
            } catch (RuntimeException e) {
                out.flush();
                err.println(Rping.perror("mckey: resolve addr failure", e));
                connectError();
                return -1;
            }
        }
        int ret = connectEvents();
        Thread events = null;
        if (ret == 0) {
            events = startEventThread();
            out.flush();
            joined.accept(0);
            ret = transfer();
        }
        // out: every node leaves, and the last leave's result is the run's (mckey overwrites ret here)
        for (CmatestNode node : nodes) {
            try {
                node.cmaId.leaveMulticast(group);
                ret = 0;
            } catch (RuntimeException e) {
                out.flush();
                err.println(Rping.perror("mckey: failure leaving", e));
                ret = -1;
            }
        }
        if (events != null) {
            events.interrupt();
            try {
                events.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        return ret;
    }

    /** After the pause ("to give SM chance to configure switches"), the sends or the receives. */
    private int transfer() {
        try {
            Thread.sleep(options.settle());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return -1;
        }
        if (messageCount == 0) {
            return 0;
        }
        if (options.sender()) {
            out.println("initiating data transfers");
            for (CmatestNode node : nodes) {
                int ret = postSends(node);
                if (ret != 0) {
                    return ret;
                }
            }
        } else {
            out.println("receiving data transfers");
            int ret = pollCqs();
            if (ret != 0) {
                return ret;
            }
        }
        out.println("data transfers complete");
        return 0;
    }
}
