package org.roce4j.ibverbs;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import java.lang.foreign.Arena;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;

import org.roce4j.cm.ConnParam;
import org.roce4j.cm.UdParam;

/**
 * Java values to and from librdmacm's structs: socket addresses ({@code sockaddr_in},
 * {@code sockaddr_in6}), {@code rdma_conn_param} and {@code rdma_ud_param}. Private data is copied
 * out of the native struct, so it outlives {@code rdma_ack_cm_event}, which frees it.
 */
@SuppressWarnings("restricted")   // this is the module that calls native code (FFM)
final class RdmacmStructs {
    private static final MemoryLayout CONN = RdmacmLayouts.RDMA_CONN_PARAM;
    private static final MemoryLayout UD = RdmacmLayouts.RDMA_UD_PARAM;

    private RdmacmStructs() {
    }

    /** {@return a {@code sockaddr_in} or {@code sockaddr_in6} for the address, or NULL for null} */
    static MemorySegment sockaddr(Arena arena, InetSocketAddress address) {
        if (address == null) {
            return MemorySegment.NULL;
        }
        if (address.isUnresolved()) {
            throw new IllegalArgumentException("unresolved address " + address + ": resolve the host name first");
        }
        InetAddress ip = address.getAddress();
        short port = (short) address.getPort();
        if (ip instanceof Inet4Address) {
            var l = RdmacmLayouts.SOCKADDR_IN;
            MemorySegment s = arena.allocate(l);
            s.set(JAVA_SHORT, Layouts.offset(l, "sin_family"), RdmacmLayouts.AF_INET);
            s.set(JAVA_SHORT, Layouts.offset(l, "sin_port"), Short.reverseBytes(port));
            MemorySegment.copy(ip.getAddress(), 0, s, JAVA_BYTE, Layouts.offset(l, "sin_addr"), 4);
            return s;
        }
        var l = RdmacmLayouts.SOCKADDR_IN6;
        MemorySegment s = arena.allocate(l);
        s.set(JAVA_SHORT, Layouts.offset(l, "sin6_family"), RdmacmLayouts.AF_INET6);
        s.set(JAVA_SHORT, Layouts.offset(l, "sin6_port"), Short.reverseBytes(port));
        MemorySegment.copy(ip.getAddress(), 0, s, JAVA_BYTE, Layouts.offset(l, "sin6_addr"), 16);
        s.set(JAVA_INT, Layouts.offset(l, "sin6_scope_id"), ((Inet6Address) ip).getScopeId());
        return s;
    }

    /**
     * {@return the address a {@code sockaddr_storage} holds, with its port in host order; null when
     * its family is neither AF_INET nor AF_INET6 (0 while the id has no such address)}
     */
    static InetSocketAddress inetSocketAddress(MemorySegment storage) {
        short family = storage.get(JAVA_SHORT, Layouts.offset(RdmacmLayouts.SOCKADDR_STORAGE, "ss_family"));
        try {
            if (family == RdmacmLayouts.AF_INET) {
                var l = RdmacmLayouts.SOCKADDR_IN;
                byte[] ip = storage.asSlice(Layouts.offset(l, "sin_addr"), 4).toArray(JAVA_BYTE);
                return new InetSocketAddress(InetAddress.getByAddress(ip), port(storage, Layouts.offset(l, "sin_port")));
            }
            if (family == RdmacmLayouts.AF_INET6) {
                var l = RdmacmLayouts.SOCKADDR_IN6;
                byte[] ip = storage.asSlice(Layouts.offset(l, "sin6_addr"), 16).toArray(JAVA_BYTE);
                int scope = storage.get(JAVA_INT, Layouts.offset(l, "sin6_scope_id"));
                return new InetSocketAddress(Inet6Address.getByAddress(null, ip, scope),
                        port(storage, Layouts.offset(l, "sin6_port")));
            }
            return null;
        } catch (UnknownHostException e) {
            throw new IllegalStateException("a 4- or 16-byte address was refused", e);   // cannot happen
        }
    }

    private static int port(MemorySegment sockaddr, long offset) {
        return Short.toUnsignedInt(Short.reverseBytes(sockaddr.get(JAVA_SHORT, offset)));
    }

    /** {@return a {@code struct rdma_conn_param} holding {@code param} (its private data in {@code arena}), or NULL for null} */
    static MemorySegment connParam(Arena arena, ConnParam param) {
        if (param == null) {
            return MemorySegment.NULL;
        }
        MemorySegment c = arena.allocate(CONN);
        byte[] data = param.privateData();
        if (data.length > 0) {
            c.set(ADDRESS, Layouts.offset(CONN, "private_data"), arena.allocateFrom(JAVA_BYTE, data));
        }
        setByte(c, "private_data_len", data.length);
        setByte(c, "responder_resources", param.responderResources());
        setByte(c, "initiator_depth", param.initiatorDepth());
        setByte(c, "flow_control", param.flowControl());
        setByte(c, "retry_count", param.retryCount());
        setByte(c, "rnr_retry_count", param.rnrRetryCount());
        setByte(c, "srq", param.srq() ? 1 : 0);
        c.set(JAVA_INT, Layouts.offset(CONN, "qp_num"), param.qpNum());
        return c;
    }

    private static void setByte(MemorySegment c, String field, int value) {
        c.set(JAVA_BYTE, Layouts.offset(CONN, field), (byte) value);
    }

    /**
     * {@return the {@code rdma_conn_param} of an event as a ConnParam}. flow_control, retry_count and
     * rnr_retry_count are 1-, 3- and 3-bit fields of the REQ (IBTA 12.6.5) that the kernel copies into
     * bytes; they are masked to those widths so a value the API cannot hold never throws here.
     */
    static ConnParam readConnParam(MemorySegment c) {
        return new ConnParam(privateData(c, CONN), getByte(c, CONN, "responder_resources"),
                getByte(c, CONN, "initiator_depth"), getByte(c, CONN, "flow_control") & 1,
                getByte(c, CONN, "retry_count") & 7, getByte(c, CONN, "rnr_retry_count") & 7,
                getByte(c, CONN, "srq") != 0, c.get(JAVA_INT, Layouts.offset(CONN, "qp_num")) & 0xFFFFFF);
    }

    /** {@return the {@code rdma_ud_param} of an event as a UdParam} */
    static UdParam readUdParam(MemorySegment u) {
        return readUdParam(u, true);
    }

    /**
     * {@return the {@code rdma_ud_param} of an event as a UdParam}; without {@code withPrivateData} its
     * private data is left out (a multicast event's {@code private_data} is the join's context, not data)
     */
    static UdParam readUdParam(MemorySegment u, boolean withPrivateData) {
        return new UdParam(withPrivateData ? privateData(u, UD) : null,
                IbvPd.readAhAttr(u.asSlice(Layouts.offset(UD, "ah_attr"), Layouts.IBV_AH_ATTR)),
                u.get(JAVA_INT, Layouts.offset(UD, "qp_num")) & 0xFFFFFF, u.get(JAVA_INT, Layouts.offset(UD, "qkey")));
    }

    /** Copies {@code private_data_len} bytes from {@code private_data} (both structs start with these two fields). */
    private static byte[] privateData(MemorySegment s, MemoryLayout layout) {
        int length = getByte(s, layout, "private_data_len");
        MemorySegment data = s.get(ADDRESS, Layouts.offset(layout, "private_data"));
        if (length == 0 || data.equals(MemorySegment.NULL)) {
            return new byte[0];
        }
        return data.reinterpret(length).toArray(JAVA_BYTE);
    }

    private static int getByte(MemorySegment s, MemoryLayout layout, String field) {
        return Byte.toUnsignedInt(s.get(JAVA_BYTE, Layouts.offset(layout, field)));
    }
}
