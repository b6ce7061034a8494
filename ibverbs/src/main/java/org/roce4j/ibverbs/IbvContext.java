package org.roce4j.ibverbs;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

import org.roce4j.verbs.AsyncEvent;
import org.roce4j.verbs.AsyncEventType;
import org.roce4j.verbs.CompChannel;
import org.roce4j.verbs.Context;
import org.roce4j.verbs.Cq;
import org.roce4j.verbs.Device;
import org.roce4j.verbs.DeviceAttr;
import org.roce4j.verbs.DeviceCapFlag;
import org.roce4j.verbs.Errno;
import org.roce4j.verbs.Gid;
import org.roce4j.verbs.GidEntry;
import org.roce4j.verbs.GidType;
import org.roce4j.verbs.Mtu;
import org.roce4j.verbs.Pd;
import org.roce4j.verbs.PortAttr;
import org.roce4j.verbs.VerbsException;
import org.roce4j.verbs.spi.RegisteredMemory;

/** An open device: {@code struct ibv_context *}, with the data-path function pointers of its ops table. */
@SuppressWarnings("restricted")   // this is the module that calls native code (FFM)
final class IbvContext extends Resource implements Context {
    private static final long OPS = Layouts.offset(Layouts.IBV_CONTEXT, "ops");
    private static final long VERBS_CONTEXT_TO_CONTEXT = Layouts.offset(Layouts.VERBS_CONTEXT, "context");
    /** {@code __VERBS_ABI_IS_EXTENDED}: {@code (void *)UINTPTR_MAX} in {@code abi_compat}. */
    private static final long ABI_IS_EXTENDED = -1L;

    final LibIbverbs lib;
    private final IbvDevice device;
    final MemorySegment context;
    final MemorySegment postSend;
    final MemorySegment postRecv;
    final MemorySegment postSrqRecv;
    final MemorySegment pollCq;
    final MemorySegment reqNotifyCq;
    private final int asyncFd;
    /** Opened by librdmacm for its CM ids ({@code id->verbs}): it stays open for the library's life. */
    private final boolean ownedByLibrdmacm;
    /** Native address to object, for the element of asynchronous and completion events. */
    final Map<Long, IbvCq> cqs = new ConcurrentHashMap<>();
    final Map<Long, IbvQp> qps = new ConcurrentHashMap<>();
    final Map<Long, IbvSrq> srqs = new ConcurrentHashMap<>();
    /** The memory registered on this context: the only memory INLINE sends may name (see SendWrChain). */
    final RegisteredMemory registeredMemory = new RegisteredMemory();

    IbvContext(LibIbverbs lib, IbvDevice device, MemorySegment context) {
        this(lib, device, context, false);
    }

    /**
     * @param ownedByLibrdmacm whether librdmacm opened the context (an id's {@code verbs}): then
     *                         {@link #close()} leaves it open
     */
    IbvContext(LibIbverbs lib, IbvDevice device, MemorySegment context, boolean ownedByLibrdmacm) {
        this.lib = lib;
        this.ownedByLibrdmacm = ownedByLibrdmacm;
        this.device = device;
        this.context = context.reinterpret(Layouts.IBV_CONTEXT.byteSize());
        postSend = op("post_send");
        postRecv = op("post_recv");
        postSrqRecv = op("post_srq_recv");
        pollCq = op("poll_cq");
        reqNotifyCq = op("req_notify_cq");
        asyncFd = this.context.get(JAVA_INT, Layouts.offset(Layouts.IBV_CONTEXT, "async_fd"));
    }

    /** A function pointer of {@code context->ops} by its field name ({@link Layouts#CONTEXT_OPS}). */
    MemorySegment op(String name) {
        return context.get(ADDRESS, OPS + Layouts.offset(Layouts.IBV_CONTEXT_OPS, name));
    }

    @Override
    String kind() {
        return "context";
    }

    @Override
    public Device device() {
        return device;
    }

    @Override
    public DeviceAttr queryDevice() {
        checkOpen("ibv_query_device");
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment a = arena.allocate(Layouts.IBV_DEVICE_ATTR);
            LibIbverbs.status("ibv_query_device", lib.queryDevice, context, a);
            var l = Layouts.IBV_DEVICE_ATTR;
            return new DeviceAttr(
                    a.getString(0),
                    Long.reverseBytes(a.get(JAVA_LONG, Layouts.offset(l, "node_guid"))),
                    Long.reverseBytes(a.get(JAVA_LONG, Layouts.offset(l, "sys_image_guid"))),
                    a.get(JAVA_LONG, Layouts.offset(l, "max_mr_size")),
                    a.get(JAVA_LONG, Layouts.offset(l, "page_size_cap")),
                    i(a, l, "vendor_id"), i(a, l, "vendor_part_id"), i(a, l, "hw_ver"),
                    i(a, l, "max_qp"), i(a, l, "max_qp_wr"), i(a, l, "max_sge"), i(a, l, "max_sge_rd"),
                    i(a, l, "max_cq"), i(a, l, "max_cqe"), i(a, l, "max_mr"), i(a, l, "max_pd"),
                    i(a, l, "max_qp_rd_atom"), i(a, l, "max_qp_init_rd_atom"), i(a, l, "max_res_rd_atom"),
                    DeviceAttr.AtomicCapability.values()[Math.min(2, i(a, l, "atomic_cap"))],
                    i(a, l, "max_mw"),
                    i(a, l, "max_mcast_grp"), i(a, l, "max_mcast_qp_attach"), i(a, l, "max_total_mcast_qp_attach"),
                    i(a, l, "max_ah"), i(a, l, "max_srq"), i(a, l, "max_srq_wr"),
                    i(a, l, "max_srq_sge"),
                    Short.toUnsignedInt(a.get(JAVA_SHORT, Layouts.offset(l, "max_pkeys"))),
                    Byte.toUnsignedInt(a.get(JAVA_BYTE, Layouts.offset(l, "local_ca_ack_delay"))),
                    Byte.toUnsignedInt(a.get(JAVA_BYTE, Layouts.offset(l, "phys_port_cnt"))),
                    // struct ibv_device_attr has no inline limit; what a QP gets is in Qp.initAttr().
                    0,
                    DeviceCapFlag.of(i(a, l, "device_cap_flags")));
        }
    }

    private static int i(MemorySegment s, java.lang.foreign.MemoryLayout l, String field) {
        return s.get(JAVA_INT, Layouts.offset(l, field));
    }

    @Override
    public PortAttr queryPort(int portNum) {
        checkOpen("ibv_query_port");
        checkPort("ibv_query_port", portNum);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment a = arena.allocate(Layouts.IBV_PORT_ATTR);
            queryPortInto(portNum, a);
            var l = Layouts.IBV_PORT_ATTR;
            int linkLayer = Byte.toUnsignedInt(a.get(JAVA_BYTE, Layouts.offset(l, "link_layer")));
            return new PortAttr(
                    PortAttr.PortState.values()[Math.min(5, i(a, l, "state"))],
                    Mtu.of(i(a, l, "max_mtu")), Mtu.of(i(a, l, "active_mtu")),
                    i(a, l, "gid_tbl_len"), i(a, l, "port_cap_flags"),
                    Integer.toUnsignedLong(i(a, l, "max_msg_sz")),
                    Short.toUnsignedInt(a.get(JAVA_SHORT, Layouts.offset(l, "pkey_tbl_len"))),
                    Short.toUnsignedInt(a.get(JAVA_SHORT, Layouts.offset(l, "lid"))),
                    Short.toUnsignedInt(a.get(JAVA_SHORT, Layouts.offset(l, "sm_lid"))),
                    Byte.toUnsignedInt(a.get(JAVA_BYTE, Layouts.offset(l, "active_width"))),
                    Byte.toUnsignedInt(a.get(JAVA_BYTE, Layouts.offset(l, "active_speed"))),
                    Byte.toUnsignedInt(a.get(JAVA_BYTE, Layouts.offset(l, "phys_state"))),
                    PortAttr.LinkLayer.values()[Math.min(2, linkLayer)]);
        }
    }

    /**
     * {@return the function pointer {@code name} of this context's {@code struct verbs_context}, or NULL}: what
     * verbs.h's {@code verbs_get_ctx_op} finds (NULL for a legacy context, a context too small to have the
     * field, or a provider without the op; the static-inline verb then fails EOPNOTSUPP).
     */
    MemorySegment verbsContextOp(String name) {
        long abiCompat = context.get(JAVA_LONG, Layouts.offset(Layouts.IBV_CONTEXT, "abi_compat"));
        if (abiCompat != ABI_IS_EXTENDED) {
            return MemorySegment.NULL;
        }
        MemorySegment verbsContext = MemorySegment.ofAddress(context.address() - VERBS_CONTEXT_TO_CONTEXT)
                .reinterpret(Layouts.VERBS_CONTEXT.byteSize());
        long size = verbsContext.get(JAVA_LONG, Layouts.offset(Layouts.VERBS_CONTEXT, "sz"));
        long offset = Layouts.offset(Layouts.VERBS_CONTEXT, name);
        // verbs_get_ctx_op: the op exists when sz reaches back to it (the struct grows towards lower addresses).
        if (size < Layouts.VERBS_CONTEXT.byteSize() - offset) {
            return MemorySegment.NULL;
        }
        return verbsContext.get(ADDRESS, offset);
    }

    @Override
    public java.util.Set<org.roce4j.verbs.DeviceCapFlagEx> queryDeviceCapFlagsEx() {
        checkOpen("ibv_query_device_ex");
        return ExtendedVerbs.deviceCapFlagsEx(this);
    }

    @Override
    public org.roce4j.verbs.OdpCaps queryOdpCaps() {
        checkOpen("ibv_query_device_ex");
        return ExtendedVerbs.odpCaps(this);
    }

    /**
     * What the {@code ibv_query_port} macro does: {@code verbs_context->query_port} with the full
     * struct size when the context is an extended one that has it, else the exported compat function.
     */
    private void queryPortInto(int portNum, MemorySegment attr) {
        long abiCompat = context.get(JAVA_LONG, Layouts.offset(Layouts.IBV_CONTEXT, "abi_compat"));
        if (abiCompat == ABI_IS_EXTENDED) {
            MemorySegment verbsContext = MemorySegment.ofAddress(context.address() - VERBS_CONTEXT_TO_CONTEXT)
                    .reinterpret(Layouts.VERBS_CONTEXT.byteSize());
            long size = verbsContext.get(JAVA_LONG, Layouts.offset(Layouts.VERBS_CONTEXT, "sz"));
            MemorySegment fn = verbsContext.get(ADDRESS, Layouts.offset(Layouts.VERBS_CONTEXT, "query_port"));
            if (size >= Layouts.VERBS_CONTEXT.byteSize() && !fn.equals(MemorySegment.NULL)) {
                int errno = LibIbverbs.statusOf(fn, lib.queryPortOp, context, (byte) portNum, attr,
                        Layouts.IBV_PORT_ATTR.byteSize());
                if (errno != 0) {
                    throw new VerbsException(Errno.of(errno), "ibv_query_port failed (errno " + errno + ")");
                }
                return;
            }
        }
        LibIbverbs.status("ibv_query_port", lib.queryPortCompat, context, (byte) portNum, attr);
    }

    @Override
    public Gid queryGid(int portNum, int index) {
        checkOpen("ibv_query_gid");
        checkPort("ibv_query_gid", portNum);
        if (index < 0 || index >= queryPort(portNum).gidTblLen()) {
            throw new VerbsException(Errno.EINVAL, "ibv_query_gid: no GID index " + index + " on port " + portNum);
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment gid = arena.allocate(Layouts.IBV_GID);
            int errno = LibIbverbs.statusOf(lib.queryGid, context, (byte) portNum, index, gid);
            Gid result = Gid.of(gid.toArray(JAVA_BYTE));
            if (errno != 0 || result.equals(Gid.ZERO)) {
                // rdma-core reads the sysfs entry; an unset entry is all zeros (or unreadable).
                throw new VerbsException(Errno.EINVAL, "ibv_query_gid: GID index " + index + " of port " + portNum
                        + " is empty");
            }
            return result;
        }
    }

    @Override
    public GidEntry queryGidEx(int portNum, int index) {
        checkOpen("ibv_query_gid_ex");
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment entry = arena.allocate(Layouts.IBV_GID_ENTRY);
            LibIbverbs.status("ibv_query_gid_ex", lib.queryGidEx, context, portNum, index, entry, 0,
                    Layouts.IBV_GID_ENTRY.byteSize());
            return gidEntry(entry);
        }
    }

    @Override
    public List<GidEntry> queryGidTable() {
        checkOpen("ibv_query_gid_table");
        int capacity = 0;
        for (int port = 1; port <= queryDevice().physPortCnt(); port++) {
            capacity += queryPort(port).gidTblLen();
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment entries = arena.allocate(Layouts.IBV_GID_ENTRY, Math.max(1, capacity));
            long count = (long) LibIbverbs.call(lib.queryGidTable, context, entries, (long) Math.max(1, capacity), 0,
                    Layouts.IBV_GID_ENTRY.byteSize());
            if (count < 0) { // ssize_t: the number of entries, or a negative errno
                throw new VerbsException(Errno.of((int) -count), "ibv_query_gid_table failed (errno " + -count + ")");
            }
            List<GidEntry> table = new ArrayList<>((int) count);
            for (long i = 0; i < count; i++) {
                table.add(gidEntry(entries.asSlice(i * Layouts.IBV_GID_ENTRY.byteSize(), Layouts.IBV_GID_ENTRY)));
            }
            return table;
        }
    }

    private static GidEntry gidEntry(MemorySegment entry) {
        var l = Layouts.IBV_GID_ENTRY;
        return new GidEntry(Gid.of(entry.asSlice(0, 16).toArray(JAVA_BYTE)), i(entry, l, "gid_index"),
                i(entry, l, "port_num"), GidType.of(i(entry, l, "gid_type")), i(entry, l, "ndev_ifindex"));
    }

    private static void checkPort(String verb, int portNum) {
        if (portNum < 1 || portNum > 255) {   // a uint8_t in C: 256 would silently become 0
            throw new VerbsException(Errno.EINVAL, verb + ": no port " + portNum);
        }
    }

    /** {@code context->num_comp_vectors}, as the provider set it when the device was opened. */
    @Override
    public int numCompVectors() {
        return context.get(JAVA_INT, Layouts.offset(Layouts.IBV_CONTEXT, "num_comp_vectors"));
    }

    @Override
    public Pd allocPd() {
        checkOpen("ibv_alloc_pd");
        MemorySegment pd = LibIbverbs.pointer("ibv_alloc_pd", lib.allocPd, context);
        addChild();
        return new IbvPd(this, pd);
    }

    @Override
    public CompChannel createCompChannel() {
        checkOpen("ibv_create_comp_channel");
        MemorySegment channel = LibIbverbs.pointer("ibv_create_comp_channel", lib.createCompChannel, context);
        addChild();
        return new IbvCompChannel(this, channel);
    }

    @Override
    public Cq createCq(int cqe, CompChannel channel, int compVector) {
        checkOpen("ibv_create_cq");
        IbvCompChannel ours = null;
        if (channel != null) {
            if (!(channel instanceof IbvCompChannel c) || c.context != this) {
                throw new VerbsException(Errno.EINVAL, "ibv_create_cq: the completion channel belongs to another context");
            }
            c.checkOpen("ibv_create_cq");
            ours = c;
        }
        if (cqe < 1) {
            throw new VerbsException(Errno.EINVAL, "ibv_create_cq: cqe " + cqe + " (at least 1)");
        }
        MemorySegment cq = LibIbverbs.pointer("ibv_create_cq", lib.createCq, context, cqe, MemorySegment.NULL,
                ours == null ? MemorySegment.NULL : ours.channel, compVector);
        addChild();
        if (ours != null) {
            ours.addChild();
        }
        IbvCq created = new IbvCq(this, cq, ours);
        cqs.put(created.cq.address(), created);
        return created;
    }

    @Override
    public org.roce4j.verbs.CqEx createCqEx(org.roce4j.verbs.CqInitAttrEx attr) {
        java.util.Objects.requireNonNull(attr, "attr");
        checkOpen("ibv_create_cq_ex");
        IbvCompChannel ours = null;
        if (attr.channel() != null) {
            if (!(attr.channel() instanceof IbvCompChannel c) || c.context != this) {
                throw new VerbsException(Errno.EINVAL, "ibv_create_cq_ex: the completion channel belongs to another context");
            }
            c.checkOpen("ibv_create_cq_ex");
            ours = c;
        }
        MemorySegment cqEx = ExtendedVerbs.createCqEx(this, attr, ours == null ? MemorySegment.NULL : ours.channel);
        addChild();
        if (ours != null) {
            ours.addChild();
        }
        IbvCq created = new IbvCq(this, cqEx, ours, new CqExPoller(cqEx, attr.wcFlags()));
        cqs.put(created.cq.address(), created);
        return created;
    }

    @Override
    public Optional<AsyncEvent> pollAsyncEvent() {
        return getAsyncEvent(Duration.ZERO);
    }

    @Override
    public Optional<AsyncEvent> getAsyncEvent(Duration timeout) {
        Objects.requireNonNull(timeout, "timeout");
        checkOpen("ibv_get_async_event");
        int millis = (int) Math.min(Integer.MAX_VALUE, Math.max(0, timeout.toMillis()));
        if (!lib.readable(asyncFd, millis)) {
            return Optional.empty();
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment event = arena.allocate(Layouts.IBV_ASYNC_EVENT);
            LibIbverbs.status("ibv_get_async_event", lib.getAsyncEvent, context, event);
            int type = event.get(JAVA_INT, Layouts.offset(Layouts.IBV_ASYNC_EVENT, "event_type"));
            MemorySegment element = event.get(ADDRESS, 0);
            AsyncEvent result = toEvent(type, element, event.get(JAVA_INT, 0));
            LibIbverbs.call(lib.ackAsyncEvent, event);
            return Optional.ofNullable(result);
        }
    }

    private AsyncEvent toEvent(int type, MemorySegment element, int portNum) {
        if (type < 0 || type >= AsyncEventType.values().length) {
            return null;   // IBV_EVENT_WQ_FATAL or newer: no WQs in this API
        }
        AsyncEventType t = AsyncEventType.values()[type];
        return switch (t) {
            case CQ_ERR -> AsyncEvent.of(t, cqs.get(element.address()));
            case QP_FATAL, QP_REQ_ERR, QP_ACCESS_ERR, COMM_EST, SQ_DRAINED, PATH_MIG, PATH_MIG_ERR,
                 QP_LAST_WQE_REACHED -> AsyncEvent.of(t, qps.get(element.address()));
            case SRQ_ERR, SRQ_LIMIT_REACHED -> AsyncEvent.of(t, srqs.get(element.address()));
            default -> AsyncEvent.ofPort(t, portNum);
        };
    }

    /**
     * {@code ibv_close_device}; does nothing on a context librdmacm opened for its ids: librdmacm
     * shares one per device among all ids and closes it only when the device goes away (cma.c
     * {@code remove_cma_dev}), so closing it here would pull it from under every other id.
     */
    @Override
    public void close() {
        if (ownedByLibrdmacm) {
            return;
        }
        closeOnce("ibv_close_device", "PDs, CQs or completion channels",
                () -> LibIbverbs.status("ibv_close_device", lib.closeDevice, context));
    }

    @Override
    public String toString() {
        return "IbvContext[" + device.name() + "]";
    }
}
