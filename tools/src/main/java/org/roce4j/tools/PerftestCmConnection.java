package org.roce4j.tools;

import static org.roce4j.tools.VerbsSteps.act;
import static org.roce4j.tools.VerbsSteps.step;

import java.net.InetSocketAddress;
import java.util.Arrays;

import org.roce4j.cm.CmEvent;
import org.roce4j.cm.CmEventType;
import org.roce4j.cm.CmId;
import org.roce4j.cm.ConnParam;
import org.roce4j.cm.ConnectionManager;
import org.roce4j.cm.EventChannel;
import org.roce4j.cm.PortSpace;
import org.roce4j.verbs.Context;
import org.roce4j.verbs.Pd;
import org.roce4j.verbs.QpAttr;
import org.roce4j.verbs.QpInitAttr;
import org.roce4j.verbs.VerbsException;

/**
 * The test's QPs under {@code -R}: perftest_communication.c {@code create_rdma_cm_connection}. The
 * ids come first — the client resolves one per QP towards the server's port (the same port as the
 * out-of-band channel, whose listener is gone by then), the server listens with a backlog of the QP
 * count and takes that many CONNECT_REQUESTs — then the run's resources on the ids' device, each QP
 * made by {@code rdma_create_qp}; then the client connects each and waits for ESTABLISHED, and the
 * server accepts each (setting {@code min_rnr_timer} 12 afterwards, as {@code
 * rdma_cm_connection_request_handler} does) and stops listening without waiting for ESTABLISHED.
 * The CM, not the address records, sets the QPs' PSNs and path: the records still travel (and are
 * printed) but nothing moves a QP by them. Connection parameters: responder resources and initiator
 * depth out_reads for READ and atomics (0 otherwise), retry and RNR retry count 7, no private data.
 *
 * <p>perftest's server listens only after the sync that lets its client go on ({@code
 * create_rdma_cm_connection}: {@code ctx_hand_shake}, then {@code rdma_cm_server_connection}), so
 * the client's REQ may find the port closed (REJ, reason 8: invalid service ID). Its client
 * therefore tries the connection again ({@code rdma_cm_client_connection}: up to {@value
 * #CONNECT_TRIES} times, {@value #CONNECT_RETRY_DELAY_MILLIS} ms apart, with a new id); so does
 * ours, with a new id and a new QP in place of the old (the old id's QP went to ERR with the REJ).
 */
final class PerftestCmConnection {
    /** perftest's {@code MIN_RNR_TIMER}, which its server sets after {@code rdma_accept}. */
    static final int MIN_RNR_TIMER = 12;
    /** {@code rdma_cm_client_connection}'s {@code max_retries}: connections tried in all. */
    static final int CONNECT_TRIES = 10;
    /** {@code rdma_cm_client_connection}'s {@code usleep(delay)} between tries, 100,000 µs. */
    static final long CONNECT_RETRY_DELAY_MILLIS = 100;

    private final EventChannel channel;
    /** The current id of each QP: a connection tried again replaces it (the client's). */
    private final CmId[] ids;
    private final CmId listener;
    private final boolean client;
    /** Where the client's ids resolve to; null on the server. */
    private final InetSocketAddress server;
    /** How each QP was made, to make it again on a new id (the client's). */
    private final Pd[] pds;
    private final QpInitAttr[] attrs;

    private PerftestCmConnection(EventChannel channel, CmId[] ids, CmId listener, boolean client, InetSocketAddress server) {
        this.channel = channel;
        this.ids = ids;
        this.listener = listener;
        this.client = client;
        this.server = server;
        this.pds = new Pd[ids.length];
        this.attrs = new QpInitAttr[ids.length];
    }

    /** The client's ids, each resolved towards {@code host:port} (ADDR_RESOLVED, then ROUTE_RESOLVED). */
    static PerftestCmConnection resolve(ConnectionManager cm, Perftest.Options options, VerbsSteps steps)
            throws PingpongFailure {
        InetSocketAddress server = new InetSocketAddress(PerftestCmLink.resolve(options.host()), options.port());
        EventChannel channel = steps.open("Failed to create RDMA CM event channel.", cm::createEventChannel);
        PerftestCmConnection connection = new PerftestCmConnection(channel, new CmId[options.qps()], null, true, server);
        for (int i = 0; i < connection.ids.length; i++) {
            int index = i;
            connection.ids[i] = connection.newResolvedId();
            // Closes whichever id is QP i's by then (none while a connection tried again has no new id yet).
            steps.open("Failed to create RDMA CM ID.", () -> () -> {
                CmId current = connection.ids[index];
                if (current != null) {
                    current.close();
                }
            });
        }
        return connection;
    }

    /** A new id on the channel, resolved towards the server (the client's; closed again if that fails). */
    private CmId newResolvedId() throws PingpongFailure {
        CmId id = step("Failed to create RDMA CM ID.", () -> channel.createId(PortSpace.TCP, null));
        try {
            act("Failed to resolve RDMA CM address.", () -> id.resolveAddr(null, server, PerftestCmLink.RESOLVE_TIMEOUT));
            PerftestCmLink.await(channel, CmEventType.ADDR_RESOLVED).ack();
            act("Failed to resolve RDMA CM route.", () -> id.resolveRoute(PerftestCmLink.RESOLVE_TIMEOUT));
            PerftestCmLink.await(channel, CmEventType.ROUTE_RESOLVED).ack();
            return id;
        } catch (PingpongFailure | RuntimeException e) {
            id.close();
            throw e;
        }
    }

    /** What runs between the server's listen and its first CONNECT_REQUEST: the sync with the client. */
    @FunctionalInterface
    interface Sync {
        void run() throws PingpongFailure;
    }

    /**
     * The server's ids: a listener on {@code port} (any address), then {@code listening} (the client
     * connects after it), then one CONNECT_REQUEST taken per QP.
     */
    static PerftestCmConnection listen(ConnectionManager cm, Perftest.Options options, VerbsSteps steps, Sync listening)
            throws PingpongFailure {
        EventChannel channel = steps.open("Failed to create RDMA CM event channel.", cm::createEventChannel);
        CmId listener = step("Failed to create RDMA CM server control ID.", () -> channel.createId(PortSpace.TCP, null));
        try {
            act("Failed to bind RDMA CM address on the server.", () -> listener.bindAddr(new InetSocketAddress(options.port())));
            act("Failed to listen on RDMA CM server listen ID.", () -> listener.listen(options.qps()));
            listening.run();
            CmId[] ids = new CmId[options.qps()];
            for (int i = 0; i < ids.length; i++) {
                CmEvent request = PerftestCmLink.await(channel, CmEventType.CONNECT_REQUEST);
                ids[i] = steps.open("Failed to create RDMA CM ID.", request::id);
                request.ack();
            }
            return new PerftestCmConnection(channel, ids, listener, false, null);
        } catch (PingpongFailure | RuntimeException e) {
            listener.close();
            throw e;
        }
    }

    /** {@return the device context of the ids ({@code cma_id->verbs}), which the CM owns} */
    Context context() throws PingpongFailure {
        return step("Failed to initialize RDMA contexts.", () -> ids[0].verbs().orElseThrow());
    }

    /** {@code rdma_create_qp} on id {@code i}; {@code rdma_destroy_qp} (of id i's QP then) joins {@code steps}. */
    PerftestResources.QpMaker qps(VerbsSteps steps) {
        return (i, pd, attr) -> {
            CmId id = ids[i];
            var qp = step("Failed to create QP.", () -> id.createQp(pd, attr));
            pds[i] = pd;
            attrs[i] = attr;
            steps.open("Failed to create QP.", () -> () -> {
                CmId current = ids[i];
                if (current != null && current.qp().isPresent()) {
                    current.destroyQp();
                }
            });
            return qp;
        };
    }

    /**
     * The client connects every id and waits for each ESTABLISHED, trying a connection that ends
     * otherwise again (see the class comment; {@code res.qps} then holds the new QP); the server
     * accepts each and stops listening.
     */
    void establish(Perftest.Options options, int outReads, PerftestResources res) throws PingpongFailure {
        Perftest.Verb verb = options.test().verb();
        int depth = verb == Perftest.Verb.READ || verb == Perftest.Verb.ATOMIC ? outReads : 0;
        ConnParam param = ConnParam.defaults().withReadDepths(depth, depth)
                .withRetries(PerftestCmLink.RETRY_COUNT, PerftestCmLink.RETRY_COUNT);
        if (client) {
            for (CmId id : ids) {
                act("Failed to connect through RDMA CM.", () -> id.connect(param));
            }
            // One event at a time, whichever id it is for (perftest's rdma_cm_events_dispatcher): a
            // connection tried again resolves and connects its new id while the others go on.
            int[] tries = new int[ids.length];
            Arrays.fill(tries, 1);
            for (int established = 0; established < ids.length; ) {
                CmEvent event = PerftestCmLink.next(channel);
                int i = indexOf(event.id());
                CmEventType type = event.type();
                int status = event.status();
                event.ack();
                if (i < 0) {
                    continue; // an id already replaced
                }
                CmId id = ids[i];
                switch (type) {
                    case ESTABLISHED -> established++;
                    case ADDR_RESOLVED -> act("Failed to resolve RDMA CM route.",
                            () -> id.resolveRoute(PerftestCmLink.RESOLVE_TIMEOUT));
                    case ROUTE_RESOLVED -> {
                        res.qps[i] = step("Failed to create QP.", () -> id.createQp(pds[i], attrs[i]));
                        act("Failed to connect through RDMA CM.", () -> id.connect(param));
                    }
                    default -> {
                        if (tries[i] == CONNECT_TRIES) {
                            throw new PingpongFailure(PerftestCmLink.eventError(type, status, CmEventType.ESTABLISHED)
                                    + "\nFailed to connect RDMA CM client, tried " + CONNECT_TRIES + " times.");
                        }
                        tries[i]++;
                        startAgain(i);
                    }
                }
            }
            return;
        }
        try {
            for (CmId id : ids) {
                act("Failed to accept RDMA CM connection.", () -> id.accept(param));
                try {
                    // perftest ignores what this returns.
                    id.qp().orElseThrow().modify(new QpAttr().minRnrTimer(MIN_RNR_TIMER));
                } catch (VerbsException ignored) {
                    // the QP keeps the CM's timer
                }
            }
        } finally {
            act("Failed to destroy RDMA CM server listen ID.", listener::close);
        }
    }

    private int indexOf(CmId id) {
        for (int i = 0; i < ids.length; i++) {
            if (ids[i] == id) {
                return i;
            }
        }
        return -1;
    }

    /**
     * After {@link #CONNECT_RETRY_DELAY_MILLIS}: QP {@code i} and its id destroyed, a new id made and
     * its address resolution begun; its events make the new QP and connect it ({@link #establish}).
     */
    private void startAgain(int i) throws PingpongFailure {
        try {
            Thread.sleep(CONNECT_RETRY_DELAY_MILLIS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new PingpongFailure("Failed to connect RDMA CM client: interrupted");
        }
        CmId old = ids[i];
        ids[i] = null;
        act("Failed to destroy RDMA CM contexts.", old::destroyQp);
        act("Failed to destroy RDMA CM contexts.", old::close);
        CmId id = step("Failed to create RDMA CM ID.", () -> channel.createId(PortSpace.TCP, null));
        ids[i] = id;
        act("Failed to resolve RDMA CM address.", () -> id.resolveAddr(null, server, PerftestCmLink.RESOLVE_TIMEOUT));
    }

    /**
     * After the run ({@code destroy_ctx}): the client disconnects every id and waits for each
     * DISCONNECTED ({@code rdma_cm_disconnect_nodes}; {@code rxe_rping_cm.pcap} frame 386 is its DREQ);
     * the server disconnects its last id ({@code rdma_disconnect(ctx->cm_id)}), an error ignored —
     * the client's DREQ usually came first.
     */
    void disconnect() throws PingpongFailure {
        if (!client) {
            try {
                ids[ids.length - 1].disconnect();
            } catch (VerbsException ignored) {
                // already disconnected by the client
            }
            return;
        }
        for (CmId id : ids) {
            try {
                id.disconnect();
            } catch (VerbsException ignored) {
                // the server's DREQ came first: its DISCONNECTED is on the channel already
            }
        }
        for (int i = 0; i < ids.length; i++) {
            PerftestCmLink.await(channel, CmEventType.DISCONNECTED).ack();
        }
    }
}
