package org.roce4j.ibverbs;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;

import org.roce4j.cm.CmId;
import org.roce4j.cm.ConnParam;
import org.roce4j.cm.EventChannel;
import org.roce4j.cm.MulticastJoinFlag;
import org.roce4j.cm.PortSpace;
import org.roce4j.verbs.Context;
import org.roce4j.verbs.Errno;
import org.roce4j.verbs.Pd;
import org.roce4j.verbs.Qp;
import org.roce4j.verbs.QpAttr;
import org.roce4j.verbs.QpAttrMask;
import org.roce4j.verbs.QpInitAttr;
import org.roce4j.verbs.QpState;
import org.roce4j.verbs.VerbsException;

/**
 * {@code struct rdma_cm_id *}. Every call is librdmacm's, and its errno is the exception's: the
 * library and the kernel decide what is valid (EINVAL in the wrong state, EADDRINUSE, …). What is
 * checked here is only what C could not even express (another backend's objects, more than a
 * {@code uint8_t} of private data) and what would make librdmacm wait forever: destroying or
 * migrating an id with unacknowledged events (its children) is EBUSY, where {@code rdma_destroy_id}
 * and {@code rdma_migrate_id} block until they are acknowledged (cma.c).
 */
@SuppressWarnings("restricted")   // this is the module that calls native code (FFM)
final class IbvCmId extends Resource implements CmId {
    private static final long VERBS = Layouts.offset(RdmacmLayouts.RDMA_CM_ID, "verbs");
    private static final long QP = Layouts.offset(RdmacmLayouts.RDMA_CM_ID, "qp");
    private static final long PORT_NUM = Layouts.offset(RdmacmLayouts.RDMA_CM_ID, "port_num");
    private static final long SRC = Layouts.offset(RdmacmLayouts.RDMA_CM_ID, "route.addr.src_storage");
    private static final long DST = Layouts.offset(RdmacmLayouts.RDMA_CM_ID, "route.addr.dst_storage");

    private final CmRuntime runtime;
    final MemorySegment id;
    private final PortSpace space;
    private final Object context;
    private volatile IbvEventChannel channel;
    private volatile IbvQp qp;

    IbvCmId(CmRuntime runtime, IbvEventChannel channel, MemorySegment id, PortSpace space, Object context) {
        this.runtime = runtime;
        this.channel = channel;
        this.id = id;
        this.space = space;
        this.context = context;
    }

    @Override
    String kind() {
        return "CM id";
    }

    @Override
    public EventChannel channel() {
        return channel;
    }

    @Override
    public PortSpace portSpace() {
        return space;
    }

    @Override
    public Object context() {
        return context;
    }

    @Override
    public void bindAddr(InetSocketAddress address) {
        Objects.requireNonNull(address, "address");
        call("rdma_bind_addr", arena -> LibIbverbs.status("rdma_bind_addr", runtime.cm.bindAddr, id,
                RdmacmStructs.sockaddr(arena, address)));
    }

    @Override
    public void resolveAddr(InetSocketAddress source, InetSocketAddress destination, Duration timeout) {
        Objects.requireNonNull(destination, "destination");
        call("rdma_resolve_addr", arena -> LibIbverbs.status("rdma_resolve_addr", runtime.cm.resolveAddr, id,
                RdmacmStructs.sockaddr(arena, source), RdmacmStructs.sockaddr(arena, destination), millis(timeout)));
    }

    @Override
    public void resolveRoute(Duration timeout) {
        requireDevice("rdma_resolve_route");
        call("rdma_resolve_route", arena -> LibIbverbs.status("rdma_resolve_route", runtime.cm.resolveRoute, id,
                millis(timeout)));
    }

    @Override
    public void listen(int backlog) {
        call("rdma_listen", arena -> LibIbverbs.status("rdma_listen", runtime.cm.listen, id, backlog));
    }

    /** librdmacm takes an {@code int timeout_ms}. */
    private static int millis(Duration timeout) {
        return (int) Math.clamp(Objects.requireNonNull(timeout, "timeout").toMillis(), 0, Integer.MAX_VALUE);
    }

    /**
     * {@code rdma_create_qp} with the PD's pointer: librdmacm creates the QP and moves it to INIT (RTS
     * for UD); it is wrapped like any other {@link IbvQp}, and closing it is {@code rdma_destroy_qp}.
     */
    @Override
    public Qp createQp(Pd pd, QpInitAttr attr) {
        Objects.requireNonNull(pd, "pd");
        Objects.requireNonNull(attr, "attr");
        checkOpen("rdma_create_qp");
        if (!(pd instanceof IbvPd ours)) {
            throw new VerbsException(Errno.EINVAL, "rdma_create_qp: the PD belongs to another provider");
        }
        IbvQp created = ours.createQp(attr, "rdma_create_qp", init -> {
            LibIbverbs.status("rdma_create_qp", runtime.cm.createQp, id, ours.pd, init);
            return id.get(ADDRESS, QP);
        }, this::destroyNativeQp);
        qp = created;
        return created;
    }

    /**
     * {@code rdma_destroy_qp} while the id lives; once it is destroyed, its QP is destroyed as
     * rdma_destroy_qp would have: {@code ibv_destroy_qp} (the id's memory is freed by then).
     */
    private synchronized void destroyNativeQp(MemorySegment nativeQp) {
        if (isClosed()) {
            LibIbverbs.status("ibv_destroy_qp", runtime.verbs.destroyQp, nativeQp);
        } else {
            LibIbverbs.call(runtime.cm.destroyQp, id);
        }
    }

    @Override
    public void destroyQp() {
        IbvQp current = qp;
        if (current != null) {
            current.close();
            qp = null;
        }
    }

    @Override
    public Optional<Qp> qp() {
        IbvQp current = qp;
        return current == null || current.isClosed() ? Optional.empty() : Optional.of(current);
    }

    @Override
    public QpAttr initQpAttributes(QpState state) {
        Objects.requireNonNull(state, "state");
        checkOpen("rdma_init_qp_attr");
        return initQpAttr(runtime.cm, id, state);
    }

    /**
     * {@code rdma_init_qp_attr(id, &attr, &mask)} with {@code attr.qp_state = state}: the kernel fills
     * the {@code ibv_qp_attr} (the layout {@code ibv_modify_qp} writes) and the mask; the fields the mask
     * names come back, with that mask. Whatever librdmacm answers is the answer (EINVAL in a state the
     * connection cannot give).
     */
    static QpAttr initQpAttr(LibRdmacm cm, MemorySegment id, QpState state) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment attr = arena.allocate(Layouts.IBV_QP_ATTR);
            attr.set(JAVA_INT, Layouts.offset(Layouts.IBV_QP_ATTR, "qp_state"), state.value());
            MemorySegment mask = arena.allocate(JAVA_INT);
            LibIbverbs.status("rdma_init_qp_attr", cm.initQpAttr, id, attr, mask);
            return IbvQp.read(attr, QpAttrMask.of(mask.get(JAVA_INT, 0)));
        }
    }

    /** {@code rdma_establish}: librdmacm refuses an id with a QP of its own (EINVAL) and sends the RTU otherwise. */
    @Override
    public void establish() {
        call("rdma_establish", arena -> LibIbverbs.status("rdma_establish", runtime.cm.establish, id));
    }

    @Override
    public void connect(ConnParam param) {
        requireDevice("rdma_connect");
        call("rdma_connect", arena -> LibIbverbs.status("rdma_connect", runtime.cm.connect, id,
                RdmacmStructs.connParam(arena, param)));
    }

    @Override
    public void accept(ConnParam param) {
        call("rdma_accept", arena -> LibIbverbs.status("rdma_accept", runtime.cm.accept, id,
                RdmacmStructs.connParam(arena, param)));
    }

    @Override
    public void reject(byte[] privateData) {
        int length = privateData == null ? 0 : privateData.length;
        if (length > ConnParam.MAX_PRIVATE_DATA) {   // private_data_len is a uint8_t
            throw new VerbsException(Errno.EINVAL, "rdma_reject: " + length + " bytes of private data do not fit in a uint8_t length");
        }
        call("rdma_reject", arena -> LibIbverbs.status("rdma_reject", runtime.cm.reject, id,
                length == 0 ? MemorySegment.NULL : arena.allocateFrom(JAVA_BYTE, privateData), (byte) length));
    }

    @Override
    public void disconnect() {
        call("rdma_disconnect", arena -> LibIbverbs.status("rdma_disconnect", runtime.cm.disconnect, id));
    }

    @Override
    public synchronized void migrate(EventChannel to) {
        Objects.requireNonNull(to, "channel");
        checkOpen("rdma_migrate_id");
        if (!(to instanceof IbvEventChannel target)) {
            throw new VerbsException(Errno.EINVAL, "rdma_migrate_id: the channel belongs to another provider");
        }
        target.checkOpen("rdma_migrate_id");
        if (children() > 0) {   // rdma_migrate_id waits until the old channel's events of the id are acknowledged
            throw new VerbsException(Errno.EBUSY, "rdma_migrate_id: " + children() + " events of the id are not acknowledged");
        }
        LibIbverbs.status("rdma_migrate_id", runtime.cm.migrateId, id, target.channel);
        channel.removeChild();
        target.addChild();
        channel = target;
    }

    /**
     * One {@code rdma_join_multicast_ex} of this id: the address (librdmacm finds the join to leave by
     * comparing it), the application's context, and its events read and not acknowledged.
     */
    record MulticastJoin(long key, InetSocketAddress address, Object context, AtomicInteger unackedEvents) {
    }

    /** Newest first, as librdmacm's {@code mc_list}: {@code rdma_leave_multicast} takes the first match. */
    private final Deque<MulticastJoin> joins = new ArrayDeque<>();

    /**
     * {@code rdma_join_multicast_ex} with the address and the join flag; the context librdmacm is given
     * is a number that names the join ({@link CmRuntime#multicastJoins}), so the events can give the
     * application's context back.
     */
    @Override
    public synchronized void joinMulticast(InetSocketAddress group, MulticastJoinFlag flag, Object context) {
        Objects.requireNonNull(group, "group");
        Objects.requireNonNull(flag, "flag");
        MulticastJoin join = new MulticastJoin(runtime.nextMulticastKey.getAndIncrement(), group, context,
                new AtomicInteger());
        runtime.multicastJoins.put(join.key(), join);
        try {
            call("rdma_join_multicast_ex", arena -> {
                var l = RdmacmLayouts.RDMA_CM_JOIN_MC_ATTR_EX;
                MemorySegment attr = arena.allocate(l);
                attr.set(JAVA_INT, Layouts.offset(l, "comp_mask"), RdmacmLayouts.JOIN_MC_ATTR_ADDRESS_AND_FLAGS);
                attr.set(JAVA_INT, Layouts.offset(l, "join_flags"), flag.value());
                attr.set(ADDRESS, Layouts.offset(l, "addr"), RdmacmStructs.sockaddr(arena, group));
                LibIbverbs.status("rdma_join_multicast_ex", runtime.cm.joinMulticastEx, id, attr,
                        MemorySegment.ofAddress(join.key()));
            });
        } catch (RuntimeException e) {
            runtime.multicastJoins.remove(join.key());
            throw e;
        }
        joins.addFirst(join);
    }

    /**
     * {@code rdma_leave_multicast}; EBUSY while an event of that join is read and not acknowledged
     * (librdmacm would wait for the acknowledgement forever).
     */
    @Override
    public synchronized void leaveMulticast(InetSocketAddress group) {
        Objects.requireNonNull(group, "group");
        MulticastJoin join = joins.stream().filter(j -> j.address().equals(group)).findFirst().orElse(null);
        if (join != null && join.unackedEvents().get() > 0) {
            throw new VerbsException(Errno.EBUSY, "rdma_leave_multicast: an event of the join is not acknowledged");
        }
        call("rdma_leave_multicast", arena -> LibIbverbs.status("rdma_leave_multicast", runtime.cm.leaveMulticast, id,
                RdmacmStructs.sockaddr(arena, group)));
        if (join != null) {
            joins.remove(join);
            runtime.multicastJoins.remove(join.key());
        }
    }

    /** {@code rdma_get_local_addr} (inline: {@code &id->route.addr.src_addr}) with {@code rdma_get_src_port}; null while unbound. */
    @Override
    public InetSocketAddress localAddress() {
        checkOpen("rdma_get_local_addr");
        return withPort(RdmacmStructs.inetSocketAddress(id.asSlice(SRC, RdmacmLayouts.SOCKADDR_STORAGE)),
                (short) LibIbverbs.call(runtime.cm.getSrcPort, id));
    }

    /** {@code rdma_get_peer_addr} with {@code rdma_get_dst_port}; null before resolution. */
    @Override
    public InetSocketAddress peerAddress() {
        checkOpen("rdma_get_peer_addr");
        return withPort(RdmacmStructs.inetSocketAddress(id.asSlice(DST, RdmacmLayouts.SOCKADDR_STORAGE)),
                (short) LibIbverbs.call(runtime.cm.getDstPort, id));
    }

    /** The port as librdmacm reads it (a {@code __be16}). */
    private static InetSocketAddress withPort(InetSocketAddress address, short bigEndianPort) {
        return address == null ? null
                : new InetSocketAddress(address.getAddress(), Short.toUnsignedInt(Short.reverseBytes(bigEndianPort)));
    }

    /**
     * The one check this binding makes itself: librdmacm's {@code rdma_resolve_route} reads
     * {@code id->verbs->device} and {@code rdma_connect} the id's device ({@code ucma_valid_param})
     * before asking the kernel, so on an id without a device (no address resolved or bound) they
     * dereference NULL and the JVM dies; the kernel's answer to those calls there is EINVAL
     * (cma.c: the id is not in ADDR_RESOLVED / ROUTE_RESOLVED), which is given instead.
     */
    private void requireDevice(String call) {
        checkOpen(call);
        if (id.get(ADDRESS, VERBS).equals(MemorySegment.NULL)) {
            throw new VerbsException(Errno.EINVAL, call + ": the id has no device yet (no address resolved): "
                    + "librdmacm would dereference NULL here; the kernel's answer is EINVAL");
        }
    }

    @Override
    public Optional<Context> verbs() {
        checkOpen("rdma_cm_id.verbs");
        MemorySegment verbs = id.get(ADDRESS, VERBS);
        return verbs.equals(MemorySegment.NULL) ? Optional.empty() : Optional.of(runtime.context(verbs));
    }

    @Override
    public int portNum() {
        checkOpen("rdma_cm_id.port_num");
        return Byte.toUnsignedInt(id.get(JAVA_BYTE, PORT_NUM));
    }

    /** {@code rdma_destroy_id}; EBUSY while its events are unacknowledged (librdmacm would wait for them forever). */
    @Override
    public synchronized void close() {
        closeOnce("rdma_destroy_id", "events not acknowledged", () -> {
            LibIbverbs.status("rdma_destroy_id", runtime.cm.destroyId, id);
            runtime.ids.remove(id.address());
            joins.forEach(join -> runtime.multicastJoins.remove(join.key()));
            channel.removeChild();
        });
    }

    private interface NativeCall {
        void run(Arena arena);
    }

    private void call(String verb, NativeCall call) {
        checkOpen(verb);
        try (Arena arena = Arena.ofConfined()) {
            call.run(arena);
        }
    }

    @Override
    public String toString() {
        return "IbvCmId[" + space + " 0x" + Long.toHexString(id.address()) + "]";
    }
}
