package org.roce4j.emulator.cm;

import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicInteger;
import org.roce4j.cm.CmEventType;
import org.roce4j.cm.MulticastJoinFlag;
import org.roce4j.cm.PortSpace;
import org.roce4j.cm.UdParam;
import org.roce4j.verbs.AhAttr;
import org.roce4j.verbs.Errno;
import org.roce4j.verbs.Gid;
import org.roce4j.verbs.VerbsException;

/**
 * An id's multicast groups: {@code rdma_join_multicast_ex} / {@code rdma_leave_multicast} as the
 * kernel does them on a RoCEv2 port (cma.c {@code rdma_join_multicast}, {@code cma_iboe_join_multicast}:
 * no SA, the event at once) with librdmacm's part ({@code ucma_process_join}: the QP is attached when
 * the MULTICAST_JOIN event is read; {@code rdma_leave_multicast}: detached on leave). The emulated
 * node has no IP layer of its own: the IP group is joined by the QP's attachment (a device on the
 * UDP link joins it on its interface while a QP is attached), so a join without a QP, or a send-only
 * one, joins no IP group here — the kernel's full-member join sends the IGMP report at once.
 */
final class CmMulticast {
    /** The DestQP of a multicast packet (IBTA 10.5), the MULTICAST_JOIN event's qp_num (cma.c {@code cma_make_mc_event}). */
    static final int MULTICAST_QPN = 0xFFFFFF;
    /** cma.c cma_iboe_join_multicast: {@code IPV6_DEFAULT_HOPLIMIT} for a RoCEv2 group. */
    static final int HOP_LIMIT = 64;

    /**
     * One joined address: librdmacm's {@code struct cma_multicast}, with the count of its events the
     * application has read and not acknowledged ({@code events_reported - events_completed}).
     */
    record Membership(InetSocketAddress address, MulticastJoinFlag flag, Object context, Gid mgid,
                      AtomicInteger unackedEvents) {
        boolean attaches() {
            return flag == MulticastJoinFlag.FULLMEMBER;
        }
    }

    private final EmulatedCmId id;
    /** Newest first, as librdmacm's {@code mc_list} (leave takes the first match); guarded by the id's lock. */
    private final List<Membership> joined = new ArrayList<>();

    CmMulticast(EmulatedCmId id) {
        this.id = id;
    }

    void join(InetSocketAddress group, MulticastJoinFlag flag, Object context) {
        Objects.requireNonNull(group, "group");
        Objects.requireNonNull(flag, "flag");
        InetAddress ip = group.getAddress();
        if (ip == null) {
            throw new VerbsException(Errno.EINVAL, "rdma_join_multicast: unresolved address " + group); // ucma_addrlen
        }
        id.lockedRun(() -> {
            if (id.rnic == null) {
                // ucma.c ucma_get_ctx_dev: no device yet (unbound, or bound to the wildcard address).
                throw new VerbsException(Errno.EINVAL, "rdma_join_multicast: the id has no device");
            }
            id.checkState("rdma_join_multicast", RdmaCmState.ADDR_BOUND, RdmaCmState.ADDR_RESOLVED);
            if (!id.isUd()) {
                throw new VerbsException(Errno.EINVAL, "rdma_join_multicast: a " + id.space + " id has no UD QP");
            }
            if (ip.isAnyLocalAddress()) {
                throw new VerbsException(Errno.EINVAL, "rdma_join_multicast: the wildcard address"); // cma_zero_addr
            }
            if (ip instanceof Inet6Address) {
                // cma_iboe_join_multicast: an IPv6 group on a RoCEv2 (ROCE_UDP_ENCAP) GID type is -ENOTSUPP.
                throw new VerbsException(Errno.ENOTSUPP, "rdma_join_multicast: IPv6 groups on RoCEv2");
            }
            // cma_iboe_set_mgid for IB_GID_TYPE_ROCE_UDP_ENCAP: ::ffff:a.b.c.d; mlid 0, sl 0, flow label 0.
            Gid mgid = Gid.of(ip);
            Membership membership = new Membership(group, flag, context, mgid, new AtomicInteger());
            joined.addFirst(membership);
            UdParam ud = new UdParam(null, new AhAttr(mgid, id.sgidIndex, 0, HOP_LIMIT, 0, 0, 1), MULTICAST_QPN, qkey());
            id.postMulticast(CmEventType.MULTICAST_JOIN, 0, ud, membership);
        });
    }

    /** cma.c cma_set_default_qkey: RDMA_UDP_QKEY in the UDP space; IPoIB's comes from the SA, which RoCE has not (0). */
    private int qkey() {
        return id.space == PortSpace.UDP ? UdParam.RDMA_UDP_QKEY : 0;
    }

    /**
     * librdmacm ucma_process_join, when the application reads the MULTICAST_JOIN event: a full member's
     * QP is attached to the group; {@return the errno of a failed attach, else 0}
     */
    int joinRead(Membership membership) {
        var qp = id.qp;
        if (qp == null || !membership.attaches()) {
            return 0;
        }
        try {
            qp.attachMcast(membership.mgid(), 0);
            return 0;
        } catch (VerbsException e) {
            return e.errno().number();
        }
    }

    void leave(InetSocketAddress group) {
        Objects.requireNonNull(group, "group");
        if (group.getAddress() == null) {
            throw new VerbsException(Errno.EINVAL, "rdma_leave_multicast: unresolved address " + group);
        }
        Membership membership = id.locked(() -> {
            for (Membership m : joined) {
                if (m.address().equals(group)) {
                    if (m.unackedEvents().get() > 0) {
                        // librdmacm waits here until the application acknowledges the event it read.
                        throw new VerbsException(Errno.EBUSY, "rdma_leave_multicast: the join's event is not acknowledged");
                    }
                    joined.remove(m);
                    return m;
                }
            }
            return null;
        });
        if (membership == null) {
            throw new VerbsException(Errno.EADDRNOTAVAIL, "rdma_leave_multicast: the id has not joined " + group);
        }
        // ucma_leave_multicast: events not read yet are dropped (ucma_cleanup_mc_events).
        id.channel.dropEventsOf(membership);
        var qp = id.qp;
        if (qp != null && membership.attaches()) {
            try {
                qp.detachMcast(membership.mgid(), 0);
            } catch (VerbsException e) {
                // librdmacm ignores ibv_detach_mcast's answer (the QP may never have been attached).
            }
        }
    }

    /** rdma_destroy_id: the kernel leaves every group (cma_leave_mc_groups); the QP is the application's. */
    void leaveAll() {
        joined.clear();
    }
}
