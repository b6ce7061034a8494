package org.roce4j.tools;

import static org.roce4j.tools.VerbsSteps.act;
import static org.roce4j.tools.VerbsSteps.step;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.EnumSet;
import java.util.Optional;
import java.util.function.IntConsumer;

import org.roce4j.cm.CmEvent;
import org.roce4j.cm.CmEventType;
import org.roce4j.cm.CmId;
import org.roce4j.cm.ConnParam;
import org.roce4j.cm.ConnectionManager;
import org.roce4j.cm.EventChannel;
import org.roce4j.cm.PortSpace;
import org.roce4j.verbs.AccessFlag;
import org.roce4j.verbs.Context;
import org.roce4j.verbs.Cq;
import org.roce4j.verbs.Mr;
import org.roce4j.verbs.Pd;
import org.roce4j.verbs.Qp;
import org.roce4j.verbs.QpCap;
import org.roce4j.verbs.QpInitAttr;
import org.roce4j.verbs.QpType;
import org.roce4j.verbs.RecvWr;
import org.roce4j.verbs.SendWr;
import org.roce4j.verbs.WcStatus;
import org.roce4j.verbs.WorkCompletion;

/**
 * perftest's {@code -R} out-of-band channel: instead of a TCP socket, an RC QP that rdma_cm connects
 * on the same port (perftest_communication.c {@code rdma_client_connect} / {@code
 * rdma_server_connect}, the {@code perftest_comm} that {@code create_comm_struct} makes with {@code
 * use_rdma_cm}: one QP, tx and rx depth 1, one receive of {@code sizeof(struct pingpong_dest)} posted
 * before the connect). Each part is one signaled SEND whose completion is awaited ({@code
 * rdma_write_data}); a read takes the next receive completion and posts the receive again ({@code
 * rdma_read_data}). The REQ and REP carry no private data of perftest's, responder resources and
 * initiator depth 0 (the channel's verb is SEND), retry count 7 and RNR retry count 7, as {@code
 * rxe_rping_cm.pcap} frames 66 and 67 show. The server takes one CONNECT_REQUEST and destroys its
 * listening id, which frees the port for the test's own rdma_cm connection.
 */
final class PerftestCmLink implements PerftestHandshake.Link {
    /** perftest's {@code rdma_resolve_addr} and {@code rdma_resolve_route} timeouts. */
    static final Duration RESOLVE_TIMEOUT = Duration.ofMillis(2000);
    /** perftest's {@code retry_count} default and the channel's {@code rnr_retry_count}. */
    static final int RETRY_COUNT = 7;
    private static final long SYNC_SPEC_ID = 5;
    private static final Duration EVENT_POLL = Duration.ofSeconds(1);

    /** The channel, the connected id, then the QP's resources: closed newest first, as destroy_ctx does. */
    private final VerbsSteps steps;
    private final Cq sendCq;
    private final Cq recvCq;
    private final Qp qp;
    private final Mr mr;
    private final MemorySegment buffer;
    private final WorkCompletion[] completion = new WorkCompletion[1];

    private PerftestCmLink(CmId id, VerbsSteps steps, Arena arena) throws PingpongFailure {
        this.steps = steps;
        Context context = id.verbs().orElseThrow();
        Pd pd = steps.open("Couldn't allocate PD", context::allocPd);
        // Two halves: the part being sent, and the one receive (perftest shares one; the bytes are the same).
        buffer = arena.allocate(2L * PerftestAddress.RDMA_CM_LENGTH, 64);
        mr = steps.open("Couldn't allocate MR", () -> pd.regMr(buffer, EnumSet.of(AccessFlag.LOCAL_WRITE)));
        sendCq = steps.open("Couldn't create CQ", () -> context.createCq(1));
        recvCq = steps.open("Couldn't create CQ", () -> context.createCq(1));
        qp = step("Couldn't create QP", () -> id.createQp(pd, new QpInitAttr(QpType.RC, sendCq, recvCq, null,
                new QpCap(1, 1, 1, 1, 0), false)));
        AutoCloseable destroyQp = id::destroyQp;
        steps.open("Couldn't create QP", () -> destroyQp);
        postRecv();
    }

    /** {@code rdma_client_connect}: resolve, create the channel's QP, connect, wait for ESTABLISHED. */
    static PerftestHandshake connect(ConnectionManager cm, String host, int port, int gidIndex, Arena arena)
            throws PingpongFailure {
        InetSocketAddress server = new InetSocketAddress(resolve(host), port);
        VerbsSteps steps = new VerbsSteps();
        try {
            EventChannel channel = steps.open("Failed to create RDMA CM event channel.", cm::createEventChannel);
            CmId id = steps.open("Failed to create RDMA CM ID.", () -> channel.createId(PortSpace.TCP, null));
            act("rdma_resolve_addr failed", () -> id.resolveAddr(null, server, RESOLVE_TIMEOUT));
            await(channel, CmEventType.ADDR_RESOLVED).ack();
            act("rdma_resolve_route failed", () -> id.resolveRoute(RESOLVE_TIMEOUT));
            await(channel, CmEventType.ROUTE_RESOLVED).ack();
            PerftestCmLink link = new PerftestCmLink(id, steps, arena);
            act("Function rdma_connect failed", () -> id.connect(channelParam()));
            await(channel, CmEventType.ESTABLISHED).ack();
            return new PerftestHandshake(link, true, gidIndex);
        } catch (PingpongFailure | RuntimeException e) {
            closeAll(steps);
            throw e;
        }
    }

    /** {@code rdma_server_connect}: listen on {@code port} (any address), accept one connection, stop listening. */
    static PerftestHandshake accept(ConnectionManager cm, int port, IntConsumer listening, int gidIndex, Arena arena)
            throws PingpongFailure {
        VerbsSteps steps = new VerbsSteps();
        try {
            EventChannel channel = steps.open("Failed to create RDMA CM event channel.", cm::createEventChannel);
            PerftestCmLink link;
            try (CmId listener = step("Failed to create RDMA CM ID.", () -> channel.createId(PortSpace.TCP, null))) {
                act(" rdma_bind_addr failed", () -> listener.bindAddr(new InetSocketAddress(port)));
                act("rdma_listen failed", () -> listener.listen(1));
                listening.accept(listener.localAddress().getPort());
                CmEvent request = await(channel, CmEventType.CONNECT_REQUEST);
                try {
                    CmId id = steps.open("Failed to create RDMA CM ID.", request::id);
                    link = new PerftestCmLink(id, steps, arena);
                    act("Function rdma_accept failed", () -> id.accept(channelParam()));
                } finally {
                    request.ack();
                }
            }
            return new PerftestHandshake(link, false, gidIndex);
        } catch (PingpongFailure | RuntimeException e) {
            closeAll(steps);
            throw e;
        }
    }

    /** Closes what {@code steps} opened, newest first, past any failure (perftest's destroy_ctx goes on too). */
    static void closeAll(VerbsSteps steps) {
        for (AutoCloseable resource = steps.nextToClose(); resource != null; resource = steps.nextToClose()) {
            try {
                resource.close();
            } catch (Exception ignored) {
                // the rest still has to go
            }
        }
    }

    /** The channel's connection parameters: its verb is SEND, so no read depths; retries 7 and 7. */
    private static ConnParam channelParam() {
        return ConnParam.defaults().withReadDepths(0, 0).withRetries(RETRY_COUNT, RETRY_COUNT);
    }

    static InetAddress resolve(String host) throws PingpongFailure {
        try {
            return InetAddress.getByName(host);
        } catch (UnknownHostException e) {
            throw new PingpongFailure("Problem in resolving basic address and port");
        }
    }

    /**
     * Waits for the channel's next event, which must be {@code expected} (perftest blocks in
     * {@code rdma_get_cm_event} alike; the CM always ends what it started with an event); any other
     * is acknowledged and reported as perftest reports it.
     */
    static CmEvent await(EventChannel channel, CmEventType expected) throws PingpongFailure {
        CmEvent event = next(channel);
        if (event.type() != expected) {
            event.ack();
            throw new PingpongFailure(eventError(event.type(), event.status(), expected));
        }
        return event;
    }

    /** The channel's next event, waited for as long as it takes ({@code rdma_get_cm_event}). */
    static CmEvent next(EventChannel channel) throws PingpongFailure {
        while (true) {
            Optional<CmEvent> next = step("rdma_get_cm_events failed", () -> channel.getEvent(EVENT_POLL));
            if (next.isPresent()) {
                return next.get();
            }
        }
    }

    /** perftest_communication.c's report of an unexpected event: "RDMA CM event error:\nEvent: %s; error: %d.\n". */
    static String eventError(CmEventType type, int status, CmEventType expected) {
        return "RDMA CM event error:\nEvent: " + type.cName() + "; error: " + status
                + ".\n (waiting for " + expected.cName() + ")";
    }

    private void postRecv() throws PingpongFailure {
        act("Couldn't post recv", () -> qp.postRecv(RecvWr.of(SYNC_SPEC_ID, mr, PerftestAddress.RDMA_CM_LENGTH,
                PerftestAddress.RDMA_CM_LENGTH)));
    }

    @Override
    public void write(byte[] part) throws PingpongFailure {
        MemorySegment.copy(part, 0, buffer, ValueLayout.JAVA_BYTE, 0, part.length);
        act("Function ibv_post_send failed", () -> qp.postSend(SendWr.send(SYNC_SPEC_ID, mr, 0, part.length)));
        WorkCompletion wc = next(sendCq);
        if (wc.status() != WcStatus.SUCCESS) {
            throw new PingpongFailure(" Bad wc status " + wc.status().value());
        }
    }

    @Override
    public byte[] read(int length) throws PingpongFailure {
        WorkCompletion wc = next(recvCq);
        if (wc.status() != WcStatus.SUCCESS) {
            throw new PingpongFailure("Bad wc status -- " + wc.status().value() + " -- " + wc.wrId() + " ");
        }
        byte[] part = new byte[length];
        MemorySegment.copy(buffer, ValueLayout.JAVA_BYTE, PerftestAddress.RDMA_CM_LENGTH, part, 0, length);
        postRecv();
        return part;
    }

    /** Busy-polls one completion, as {@code rdma_read_data} and {@code rdma_write_data} do. */
    private WorkCompletion next(Cq cq) throws PingpongFailure {
        while (true) {
            int n = step("Poll CQ failed", () -> cq.poll(completion));
            if (n > 0) {
                return completion[0];
            }
            Thread.onSpinWait();
        }
    }

    @Override
    public boolean rdmaCm() {
        return true;
    }

    /** Destroys the QP and its resources, then the id — a connected id sends its DREQ when destroyed
     * ({@code rxe_rping_cm.pcap} frame 388: the server's, for the channel's QP 0x12) — then the channel. */
    @Override
    public void close() {
        closeAll(steps);
    }
}
