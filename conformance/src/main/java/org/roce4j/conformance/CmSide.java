package org.roce4j.conformance;

import java.lang.foreign.Arena;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.EnumSet;
import java.util.Optional;
import org.roce4j.cm.CmEvent;
import org.roce4j.cm.CmEventType;
import org.roce4j.cm.CmId;
import org.roce4j.cm.ConnParam;
import org.roce4j.cm.EventChannel;
import org.roce4j.cm.PortSpace;
import org.roce4j.verbs.AccessFlag;
import org.roce4j.verbs.Context;
import org.roce4j.verbs.Cq;
import org.roce4j.verbs.Device;
import org.roce4j.verbs.Mr;
import org.roce4j.verbs.Pd;
import org.roce4j.verbs.Qp;
import org.roce4j.verbs.QpAttr;
import org.roce4j.verbs.QpCap;
import org.roce4j.verbs.QpInitAttr;
import org.roce4j.verbs.QpState;
import org.roce4j.verbs.QpType;

/**
 * One side of an rdma_cm test: an event channel on the backend's provider, the device's IPv4 address
 * (its GID at {@link Endpoint#GID_INDEX}), and what the test makes on it — ids, and for an id with a
 * QP its PD, CQ and registered memory — closed in reverse order (each id's QP before the id, as
 * librdmacm wants). Events are read with {@link #await}, which reports an unexpected event as an
 * {@link Expect.UnexpectedOutcome} observing its type and status, so a departure list can name it.
 */
final class CmSide implements AutoCloseable {
    /** How long address and route resolution may take. */
    static final Duration RESOLVE_TIMEOUT = Duration.ofSeconds(2);

    final EventChannel channel;
    final InetAddress address;
    private final Arena arena = Arena.ofShared();
    private final Deque<AutoCloseable> tracked = new ArrayDeque<>();

    private CmSide(Backend backend, Device device) {
        try (Context context = device.open()) {
            address = context.queryGid(Endpoint.PORT, Endpoint.GID_INDEX).toInetAddress();
        }
        channel = backend.provider().createEventChannel();
    }

    static CmSide first(Backend backend) {
        return new CmSide(backend, backend.firstDevice());
    }

    static CmSide second(Backend backend) {
        return new CmSide(backend, backend.secondDevice());
    }

    /** What a test keeps of an event after acknowledging it. */
    record Seen(CmEventType type, CmId id, Optional<CmId> listenId, int status, byte[] privateData,
                Optional<ConnParam> conn) {
    }

    /** A new TCP-port-space id, destroyed when the side closes. */
    CmId id() {
        return track(channel.createId(PortSpace.TCP));
    }

    /** A new id bound to this side's address and an ephemeral port, listening. */
    CmId listener(int backlog) throws Exception {
        CmId listener = id();
        Expect.succeeds("bind to " + address.getHostAddress() + ":0", () -> listener.bindAddr(new InetSocketAddress(address, 0)));
        Expect.succeeds("listen", () -> listener.listen(backlog));
        return listener;
    }

    /** An id resolved (address, then route) from this side to {@code server}. */
    CmId resolvedTowards(InetSocketAddress server) throws Exception {
        CmId id = id();
        Expect.succeeds("rdma_resolve_addr", () -> id.resolveAddr(new InetSocketAddress(address, 0), server, RESOLVE_TIMEOUT));
        await("event after rdma_resolve_addr", CmEventType.ADDR_RESOLVED);
        Expect.succeeds("rdma_resolve_route", () -> id.resolveRoute(RESOLVE_TIMEOUT));
        await("event after rdma_resolve_route", CmEventType.ROUTE_RESOLVED);
        return id;
    }

    /** The id's QP (RC, 16 sends and receives) on a PD and CQ of the id's device; destroyed before the id. */
    Qp createQp(CmId id) {
        Context context = id.verbs().orElseThrow(() -> new AssertionError("the id has no device after resolution"));
        Pd pd = track(context.allocPd());
        Cq cq = track(context.createCq(32));
        Qp qp = id.createQp(pd, QpInitAttr.of(QpType.RC, cq, QpCap.of(16, 16)));
        tracked.push(id::destroyQp);
        return qp;
    }

    /**
     * A QP the application makes itself on the id's device (not {@code rdma_create_qp}: the id does not
     * know it) and moves to INIT, as rping {@code -q} does; destroyed (ibv_destroy_qp) before the id.
     */
    Qp createOwnQp(CmId id) {
        Context context = id.verbs().orElseThrow(() -> new AssertionError("the id has no device"));
        Pd pd = track(context.allocPd());
        Cq cq = track(context.createCq(32));
        Qp qp = track(pd.createQp(QpInitAttr.of(QpType.RC, cq, QpCap.of(16, 16))));
        qp.modify(new QpAttr().qpState(QpState.INIT).pkeyIndex(0).portNum(id.portNum())
                .qpAccessFlags(EnumSet.noneOf(AccessFlag.class)));
        return qp;
    }

    /** rping_self_modify_qp: INIT, RTR, RTS, each with what rdma_init_qp_attr gives for the id's connection. */
    static void selfModify(CmId id, Qp qp) throws Exception {
        for (QpState state : new QpState[] {QpState.INIT, QpState.RTR, QpState.RTS}) {
            Expect.succeeds("rdma_init_qp_attr(" + state + ") then ibv_modify_qp", () -> qp.modify(id.initQpAttributes(state)));
        }
    }

    /** Registered memory on the PD of the id's QP. */
    Mr register(Qp qp, int size) {
        return track(qp.pd().regMr(arena.allocate(size, 8), Endpoint.ALL_ACCESS));
    }

    /** The CQ of a QP made by {@link #createQp}. */
    static Cq cqOf(Qp qp) {
        return qp.initAttr().sendCq();
    }

    /**
     * The next event, acknowledged; it must be {@code expected} with status 0 (else an unexpected
     * outcome observing {@code TYPE status N}, or {@code no event} after the patience).
     */
    Seen await(String check, CmEventType expected) {
        return await(check, expected, 0, Completions.PATIENCE);
    }

    /** The next event within {@code patience}, which must be {@code expected} with {@code status}. */
    Seen await(String check, CmEventType expected, int status, Duration patience) {
        Seen seen = next(patience).orElse(null);
        Expect.outcome(check, describe(expected, status), seen == null ? "no event in " + patience.toSeconds() + " s"
                : describe(seen.type(), seen.status()));
        return seen;
    }

    /** The next event within {@code patience}, acknowledged, if there is one. */
    Optional<Seen> next(Duration patience) {
        return channel.getEvent(patience).map(event -> {
            try (CmEvent e = event) {
                return new Seen(e.type(), e.id(), e.listenId(), e.status(), e.privateData(), e.conn());
            }
        });
    }

    static String describe(CmEventType type, int status) {
        return status == 0 ? type.name() : type.name() + " status " + status;
    }

    <T extends AutoCloseable> T track(T resource) {
        tracked.push(resource);
        return resource;
    }

    @Override
    public void close() throws Exception {
        Exception failure = null;
        while (!tracked.isEmpty()) {
            try {
                tracked.pop().close();
            } catch (Exception e) {
                failure = failure == null ? e : failure;
            }
        }
        try {
            channel.close();
        } finally {
            arena.close();
        }
        if (failure != null) {
            throw failure;
        }
    }
}
