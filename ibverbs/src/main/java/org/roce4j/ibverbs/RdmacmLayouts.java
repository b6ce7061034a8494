package org.roce4j.ibverbs;

import static java.lang.foreign.MemoryLayout.paddingLayout;
import static java.lang.foreign.MemoryLayout.sequenceLayout;
import static java.lang.foreign.MemoryLayout.structLayout;
import static java.lang.foreign.MemoryLayout.unionLayout;
import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.StructLayout;
import java.lang.foreign.UnionLayout;
import java.util.List;

/**
 * The C structs of {@code <rdma/rdma_cma.h>} (rdma-core's librdmacm, LP64) and the socket addresses
 * they hold, written by hand with the headers' field names; {@code RdmacmLayoutsMatchGccTest} checks
 * every offset and size against gcc. {@code struct rdma_addr}'s source and destination are anonymous
 * unions of {@code sockaddr}, {@code sockaddr_in}, {@code sockaddr_in6} and {@code sockaddr_storage}:
 * they are written here as their largest member, {@code src_storage} / {@code dst_storage} (same size
 * and alignment), and read as {@link #SOCKADDR_IN} or {@link #SOCKADDR_IN6} by their family.
 */
final class RdmacmLayouts {
    private RdmacmLayouts() {
    }

    /** {@code AF_INET} and {@code AF_INET6} of Linux's {@code <sys/socket.h>}. */
    static final short AF_INET = 2;
    static final short AF_INET6 = 10;

    /** {@code struct sockaddr_in}: the port and address in network byte order. */
    static final StructLayout SOCKADDR_IN = structLayout(
            JAVA_SHORT.withName("sin_family"),
            JAVA_SHORT.withName("sin_port"),
            JAVA_INT.withName("sin_addr"),
            sequenceLayout(8, JAVA_BYTE).withName("sin_zero")).withName("sockaddr_in");

    /** {@code struct sockaddr_in6}. */
    static final StructLayout SOCKADDR_IN6 = structLayout(
            JAVA_SHORT.withName("sin6_family"),
            JAVA_SHORT.withName("sin6_port"),
            JAVA_INT.withName("sin6_flowinfo"),
            sequenceLayout(16, JAVA_BYTE).withName("sin6_addr"),
            JAVA_INT.withName("sin6_scope_id")).withName("sockaddr_in6");

    /** {@code struct sockaddr_storage} (glibc: 128 bytes, aligned like an unsigned long). */
    static final StructLayout SOCKADDR_STORAGE = structLayout(
            JAVA_SHORT.withName("ss_family"),
            paddingLayout(118),
            JAVA_LONG.withName("__ss_align")).withName("sockaddr_storage");

    static final StructLayout RDMA_EVENT_CHANNEL = structLayout(
            JAVA_INT.withName("fd")).withName("rdma_event_channel");

    static final StructLayout RDMA_IB_ADDR = structLayout(
            Layouts.IBV_GID.withName("sgid"),
            Layouts.IBV_GID.withName("dgid"),
            JAVA_SHORT.withName("pkey"),
            paddingLayout(6)).withName("rdma_ib_addr");

    static final StructLayout RDMA_ADDR = structLayout(
            SOCKADDR_STORAGE.withName("src_storage"),
            SOCKADDR_STORAGE.withName("dst_storage"),
            unionLayout(RDMA_IB_ADDR.withName("ibaddr")).withName("addr")).withName("rdma_addr");

    static final StructLayout RDMA_ROUTE = structLayout(
            RDMA_ADDR.withName("addr"),
            ADDRESS.withName("path_rec"),
            JAVA_INT.withName("num_paths"),
            paddingLayout(4)).withName("rdma_route");

    static final StructLayout RDMA_CM_ID = structLayout(
            ADDRESS.withName("verbs"),
            ADDRESS.withName("channel"),
            ADDRESS.withName("context"),
            ADDRESS.withName("qp"),
            RDMA_ROUTE.withName("route"),
            JAVA_INT.withName("ps"),
            JAVA_BYTE.withName("port_num"),
            paddingLayout(3),
            ADDRESS.withName("event"),
            ADDRESS.withName("send_cq_channel"),
            ADDRESS.withName("send_cq"),
            ADDRESS.withName("recv_cq_channel"),
            ADDRESS.withName("recv_cq"),
            ADDRESS.withName("srq"),
            ADDRESS.withName("pd"),
            JAVA_INT.withName("qp_type"),
            paddingLayout(4)).withName("rdma_cm_id");

    static final StructLayout RDMA_CONN_PARAM = structLayout(
            ADDRESS.withName("private_data"),
            JAVA_BYTE.withName("private_data_len"),
            JAVA_BYTE.withName("responder_resources"),
            JAVA_BYTE.withName("initiator_depth"),
            JAVA_BYTE.withName("flow_control"),
            JAVA_BYTE.withName("retry_count"),
            JAVA_BYTE.withName("rnr_retry_count"),
            JAVA_BYTE.withName("srq"),
            paddingLayout(1),
            JAVA_INT.withName("qp_num"),
            paddingLayout(4)).withName("rdma_conn_param");

    static final StructLayout RDMA_UD_PARAM = structLayout(
            ADDRESS.withName("private_data"),
            JAVA_BYTE.withName("private_data_len"),
            paddingLayout(7),
            Layouts.IBV_AH_ATTR.withName("ah_attr"),
            JAVA_INT.withName("qp_num"),
            JAVA_INT.withName("qkey")).withName("rdma_ud_param");

    static final UnionLayout RDMA_CM_EVENT_PARAM = unionLayout(
            RDMA_CONN_PARAM.withName("conn"),
            RDMA_UD_PARAM.withName("ud"));

    static final StructLayout RDMA_CM_EVENT = structLayout(
            ADDRESS.withName("id"),
            ADDRESS.withName("listen_id"),
            JAVA_INT.withName("event"),
            JAVA_INT.withName("status"),
            RDMA_CM_EVENT_PARAM.withName("param")).withName("rdma_cm_event");

    /** Every struct above whose layout is checked against the C compiler. */
    /** {@code struct rdma_cm_join_mc_attr_ex}: what {@code rdma_join_multicast_ex} is given. */
    static final StructLayout RDMA_CM_JOIN_MC_ATTR_EX = structLayout(
            JAVA_INT.withName("comp_mask"),
            JAVA_INT.withName("join_flags"),
            ADDRESS.withName("addr")).withName("rdma_cm_join_mc_attr_ex");
    /** {@code RDMA_CM_JOIN_MC_ATTR_ADDRESS | RDMA_CM_JOIN_MC_ATTR_JOIN_FLAGS}: both fields are given. */
    static final int JOIN_MC_ATTR_ADDRESS_AND_FLAGS = 1 | 1 << 1;

    static final List<MemoryLayout> CHECKED = List.of(SOCKADDR_IN, SOCKADDR_IN6, SOCKADDR_STORAGE,
            RDMA_EVENT_CHANNEL, RDMA_IB_ADDR, RDMA_ADDR, RDMA_ROUTE, RDMA_CM_ID, RDMA_CONN_PARAM, RDMA_UD_PARAM,
            RDMA_CM_EVENT, RDMA_CM_JOIN_MC_ATTR_EX);
}
