package org.roce4j.tools;

import java.io.PrintWriter;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Optional;
import java.util.function.IntConsumer;

import org.roce4j.cm.CmEvent;
import org.roce4j.cm.CmEventType;
import org.roce4j.cm.MulticastJoinFlag;
import org.roce4j.cm.PortSpace;
import org.roce4j.cm.UdParam;

/**
 * One run of librdmacm's {@code mckey} (librdmacm/examples/mckey.c) against the rdma_cm and Verbs APIs
 * alone: each node's UD id resolves its address towards the group ({@code rdma_resolve_addr(id, bind,
 * group)}), makes its QP, posts its receives (a receiver), joins the group ({@code rdma_join_multicast_ex},
 * send-only with {@code -o}) and on MULTICAST_JOIN makes the address handle to the group; after mckey's
 * pause a sender posts {@code -C} unsignaled UD SENDs with immediate data (its QPN) to QPN 0xFFFFFF, a
 * receiver polls for as many completions; then every node leaves. The same lines on stdout and its
 * return status as the exit code.
 */
final class McKey extends CmatestRun {
    /**
     * mckey's options: {@code -m} the group, {@code -b} bind address, {@code -s} sender, {@code -c} nodes,
     * {@code -C} message count, {@code -S} message size, {@code -p} port space, {@code -o} send-only join;
     * and roce4j's {@code --settle} (mckey's fixed 3 s pause) and device choice.
     */
    record Options(InetAddress group, InetAddress bind, boolean sender, int connections, int messageCount,
                   int messageSize, PortSpace portSpace, boolean sendOnly, Duration settle, String device) {
    }

    private static final Duration LAST_SEND_PATIENCE = Duration.ofSeconds(5);

    private final Options options;
    private final IntConsumer joined;
    private final InetSocketAddress group;

    /**
     * @param joined told (with 0) once every node has joined, before mckey's pause: a test starts the
     *               sender then, where a person starts it after the receiver printed its joined line
     */
    McKey(Options options, PrintWriter out, PrintWriter err, CmDevices devices, IntConsumer joined) {
        super("mckey", options.connections(), options.messageCount(), options.messageSize(), options.device(), out, err,
                devices);
        this.options = options;
        this.joined = joined;
        this.group = new InetSocketAddress(options.group(), 0);
    }

    @Override
    boolean createsIds() {
        return true;
    }

    @Override
    PortSpace portSpace() {
        return options.portSpace();
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
        int ret = postSends(node, false, true);
        return ret != 0 ? ret : awaitLastSend(node);
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

    // addr_handler (with -d NAME's check first)
    private int addrHandler(CmatestNode node) {
        int ret = prepareNode(node, !options.sender());
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
        return reach(node, param);
    }

    @Override
    int cmaHandler(CmEvent event) {
        CmatestNode node = nodeOf(event.id());
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

    /** cma_thread: after the joins, the events that still come are printed and acknowledged. */
    private Thread startEventThread() {
        return Thread.ofVirtual().name("mckey-cma").start(() -> {
            while (!Thread.currentThread().isInterrupted()) {
                Optional<CmEvent> next;
                try {
                    next = nextEvent();
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

    // run
    @Override
    int runRole() {
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
            if (resolveAddr(node, source, group, "mckey: resolve addr failure") != 0) {
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
