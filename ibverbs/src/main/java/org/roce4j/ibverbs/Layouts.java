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
import java.lang.foreign.MemoryLayout.PathElement;
import java.lang.foreign.StructLayout;
import java.lang.foreign.UnionLayout;
import java.util.Arrays;
import java.util.List;

/**
 * The C structs of {@code <infiniband/verbs.h>} (rdma-core, Linux x86-64 and aarch64: LP64), written
 * by hand with the header's field names. {@code LayoutsMatchGccTest} compiles a C program that prints
 * {@code offsetof}/{@code sizeof} of every field named here and compares. The layouts are the stable
 * ABI of libibverbs.so.1: fields are only ever added where the header says they may be.
 */
final class Layouts {
    private Layouts() {
    }

    /** {@code pthread_mutex_t} and {@code pthread_cond_t} (glibc, 64-bit). */
    static final MemoryLayout PTHREAD_MUTEX = sequenceLayout(5, JAVA_LONG).withName("mutex");
    static final MemoryLayout PTHREAD_COND = sequenceLayout(6, JAVA_LONG).withName("cond");

    /** {@code union ibv_gid}: 16 raw bytes, 8-byte aligned (it holds two __be64). */
    static final UnionLayout IBV_GID = unionLayout(
            sequenceLayout(16, JAVA_BYTE).withName("raw"),
            structLayout(JAVA_LONG.withName("subnet_prefix"), JAVA_LONG.withName("interface_id")).withName("global"))
            .withName("ibv_gid");

    /** {@code struct ibv_gid_entry} of ibv_query_gid_ex and ibv_query_gid_table. */
    static final StructLayout IBV_GID_ENTRY = structLayout(
            IBV_GID.withName("gid"), JAVA_INT.withName("gid_index"), JAVA_INT.withName("port_num"),
            JAVA_INT.withName("gid_type"), JAVA_INT.withName("ndev_ifindex")).withName("ibv_gid_entry");

    static final StructLayout IBV_DEVICE_ATTR = structLayout(
            sequenceLayout(64, JAVA_BYTE).withName("fw_ver"),
            JAVA_LONG.withName("node_guid"),
            JAVA_LONG.withName("sys_image_guid"),
            JAVA_LONG.withName("max_mr_size"),
            JAVA_LONG.withName("page_size_cap"),
            JAVA_INT.withName("vendor_id"),
            JAVA_INT.withName("vendor_part_id"),
            JAVA_INT.withName("hw_ver"),
            JAVA_INT.withName("max_qp"),
            JAVA_INT.withName("max_qp_wr"),
            JAVA_INT.withName("device_cap_flags"),
            JAVA_INT.withName("max_sge"),
            JAVA_INT.withName("max_sge_rd"),
            JAVA_INT.withName("max_cq"),
            JAVA_INT.withName("max_cqe"),
            JAVA_INT.withName("max_mr"),
            JAVA_INT.withName("max_pd"),
            JAVA_INT.withName("max_qp_rd_atom"),
            JAVA_INT.withName("max_ee_rd_atom"),
            JAVA_INT.withName("max_res_rd_atom"),
            JAVA_INT.withName("max_qp_init_rd_atom"),
            JAVA_INT.withName("max_ee_init_rd_atom"),
            JAVA_INT.withName("atomic_cap"),
            JAVA_INT.withName("max_ee"),
            JAVA_INT.withName("max_rdd"),
            JAVA_INT.withName("max_mw"),
            JAVA_INT.withName("max_raw_ipv6_qp"),
            JAVA_INT.withName("max_raw_ethy_qp"),
            JAVA_INT.withName("max_mcast_grp"),
            JAVA_INT.withName("max_mcast_qp_attach"),
            JAVA_INT.withName("max_total_mcast_qp_attach"),
            JAVA_INT.withName("max_ah"),
            JAVA_INT.withName("max_fmr"),
            JAVA_INT.withName("max_map_per_fmr"),
            JAVA_INT.withName("max_srq"),
            JAVA_INT.withName("max_srq_wr"),
            JAVA_INT.withName("max_srq_sge"),
            JAVA_SHORT.withName("max_pkeys"),
            JAVA_BYTE.withName("local_ca_ack_delay"),
            JAVA_BYTE.withName("phys_port_cnt"),
            paddingLayout(4)).withName("ibv_device_attr");

    static final StructLayout IBV_PORT_ATTR = structLayout(
            JAVA_INT.withName("state"),
            JAVA_INT.withName("max_mtu"),
            JAVA_INT.withName("active_mtu"),
            JAVA_INT.withName("gid_tbl_len"),
            JAVA_INT.withName("port_cap_flags"),
            JAVA_INT.withName("max_msg_sz"),
            JAVA_INT.withName("bad_pkey_cntr"),
            JAVA_INT.withName("qkey_viol_cntr"),
            JAVA_SHORT.withName("pkey_tbl_len"),
            JAVA_SHORT.withName("lid"),
            JAVA_SHORT.withName("sm_lid"),
            JAVA_BYTE.withName("lmc"),
            JAVA_BYTE.withName("max_vl_num"),
            JAVA_BYTE.withName("sm_sl"),
            JAVA_BYTE.withName("subnet_timeout"),
            JAVA_BYTE.withName("init_type_reply"),
            JAVA_BYTE.withName("active_width"),
            JAVA_BYTE.withName("active_speed"),
            JAVA_BYTE.withName("phys_state"),
            JAVA_BYTE.withName("link_layer"),
            JAVA_BYTE.withName("flags"),
            JAVA_SHORT.withName("port_cap_flags2"),
            paddingLayout(2)).withName("ibv_port_attr");

    static final StructLayout IBV_ASYNC_EVENT = structLayout(
            unionLayout(ADDRESS.withName("cq"), ADDRESS.withName("qp"), ADDRESS.withName("srq"),
                    ADDRESS.withName("wq"), JAVA_INT.withName("port_num")).withName("element"),
            JAVA_INT.withName("event_type"),
            paddingLayout(4)).withName("ibv_async_event");

    static final StructLayout IBV_WC = structLayout(
            JAVA_LONG.withName("wr_id"),
            JAVA_INT.withName("status"),
            JAVA_INT.withName("opcode"),
            JAVA_INT.withName("vendor_err"),
            JAVA_INT.withName("byte_len"),
            JAVA_INT.withName("imm_data"),          // union with invalidated_rkey
            JAVA_INT.withName("qp_num"),
            JAVA_INT.withName("src_qp"),
            JAVA_INT.withName("wc_flags"),
            JAVA_SHORT.withName("pkey_index"),
            JAVA_SHORT.withName("slid"),
            JAVA_BYTE.withName("sl"),
            JAVA_BYTE.withName("dlid_path_bits"),
            paddingLayout(2)).withName("ibv_wc");

    static final StructLayout IBV_PD = structLayout(
            ADDRESS.withName("context"),
            JAVA_INT.withName("handle"),
            paddingLayout(4)).withName("ibv_pd");

    static final StructLayout IBV_MR = structLayout(
            ADDRESS.withName("context"),
            ADDRESS.withName("pd"),
            ADDRESS.withName("addr"),
            JAVA_LONG.withName("length"),
            JAVA_INT.withName("handle"),
            JAVA_INT.withName("lkey"),
            JAVA_INT.withName("rkey"),
            paddingLayout(4)).withName("ibv_mr");

    static final StructLayout IBV_GLOBAL_ROUTE = structLayout(
            IBV_GID.withName("dgid"),
            JAVA_INT.withName("flow_label"),
            JAVA_BYTE.withName("sgid_index"),
            JAVA_BYTE.withName("hop_limit"),
            JAVA_BYTE.withName("traffic_class"),
            paddingLayout(1)).withName("ibv_global_route");

    static final StructLayout IBV_AH_ATTR = structLayout(
            IBV_GLOBAL_ROUTE.withName("grh"),
            JAVA_SHORT.withName("dlid"),
            JAVA_BYTE.withName("sl"),
            JAVA_BYTE.withName("src_path_bits"),
            JAVA_BYTE.withName("static_rate"),
            JAVA_BYTE.withName("is_global"),
            JAVA_BYTE.withName("port_num"),
            paddingLayout(1)).withName("ibv_ah_attr");

    static final StructLayout IBV_SRQ_ATTR = structLayout(
            JAVA_INT.withName("max_wr"),
            JAVA_INT.withName("max_sge"),
            JAVA_INT.withName("srq_limit")).withName("ibv_srq_attr");

    static final StructLayout IBV_SRQ_INIT_ATTR = structLayout(
            ADDRESS.withName("srq_context"),
            IBV_SRQ_ATTR.withName("attr"),
            paddingLayout(4)).withName("ibv_srq_init_attr");

    static final StructLayout IBV_QP_CAP = structLayout(
            JAVA_INT.withName("max_send_wr"),
            JAVA_INT.withName("max_recv_wr"),
            JAVA_INT.withName("max_send_sge"),
            JAVA_INT.withName("max_recv_sge"),
            JAVA_INT.withName("max_inline_data")).withName("ibv_qp_cap");

    static final StructLayout IBV_QP_INIT_ATTR = structLayout(
            ADDRESS.withName("qp_context"),
            ADDRESS.withName("send_cq"),
            ADDRESS.withName("recv_cq"),
            ADDRESS.withName("srq"),
            IBV_QP_CAP.withName("cap"),
            JAVA_INT.withName("qp_type"),
            JAVA_INT.withName("sq_sig_all"),
            paddingLayout(4)).withName("ibv_qp_init_attr");

    static final StructLayout IBV_QP_ATTR = structLayout(
            JAVA_INT.withName("qp_state"),
            JAVA_INT.withName("cur_qp_state"),
            JAVA_INT.withName("path_mtu"),
            JAVA_INT.withName("path_mig_state"),
            JAVA_INT.withName("qkey"),
            JAVA_INT.withName("rq_psn"),
            JAVA_INT.withName("sq_psn"),
            JAVA_INT.withName("dest_qp_num"),
            JAVA_INT.withName("qp_access_flags"),
            IBV_QP_CAP.withName("cap"),
            IBV_AH_ATTR.withName("ah_attr"),
            IBV_AH_ATTR.withName("alt_ah_attr"),
            JAVA_SHORT.withName("pkey_index"),
            JAVA_SHORT.withName("alt_pkey_index"),
            JAVA_BYTE.withName("en_sqd_async_notify"),
            JAVA_BYTE.withName("sq_draining"),
            JAVA_BYTE.withName("max_rd_atomic"),
            JAVA_BYTE.withName("max_dest_rd_atomic"),
            JAVA_BYTE.withName("min_rnr_timer"),
            JAVA_BYTE.withName("port_num"),
            JAVA_BYTE.withName("timeout"),
            JAVA_BYTE.withName("retry_cnt"),
            JAVA_BYTE.withName("rnr_retry"),
            JAVA_BYTE.withName("alt_port_num"),
            JAVA_BYTE.withName("alt_timeout"),
            paddingLayout(1),
            JAVA_INT.withName("rate_limit"),
            paddingLayout(4)).withName("ibv_qp_attr");

    static final StructLayout IBV_SGE = structLayout(
            JAVA_LONG.withName("addr"),
            JAVA_INT.withName("length"),
            JAVA_INT.withName("lkey")).withName("ibv_sge");

    static final StructLayout IBV_MW = structLayout(
            ADDRESS.withName("context"),
            ADDRESS.withName("pd"),
            JAVA_INT.withName("rkey"),
            JAVA_INT.withName("handle"),
            JAVA_INT.withName("type"),
            paddingLayout(4)).withName("ibv_mw");

    static final StructLayout IBV_MW_BIND_INFO = structLayout(
            ADDRESS.withName("mr"),
            JAVA_LONG.withName("addr"),
            JAVA_LONG.withName("length"),
            JAVA_INT.withName("mw_access_flags"),
            paddingLayout(4)).withName("ibv_mw_bind_info");

    static final StructLayout IBV_MW_BIND = structLayout(
            JAVA_LONG.withName("wr_id"),
            JAVA_INT.withName("send_flags"),
            paddingLayout(4),
            IBV_MW_BIND_INFO.withName("bind_info")).withName("ibv_mw_bind");

    static final StructLayout IBV_SEND_WR = structLayout(
            JAVA_LONG.withName("wr_id"),
            ADDRESS.withName("next"),
            ADDRESS.withName("sg_list"),
            JAVA_INT.withName("num_sge"),
            JAVA_INT.withName("opcode"),
            JAVA_INT.withName("send_flags"),
            JAVA_INT.withName("imm_data"),          // union with invalidate_rkey
            unionLayout(
                    structLayout(JAVA_LONG.withName("remote_addr"), JAVA_INT.withName("rkey"), paddingLayout(4))
                            .withName("rdma"),
                    structLayout(JAVA_LONG.withName("remote_addr"), JAVA_LONG.withName("compare_add"),
                            JAVA_LONG.withName("swap"), JAVA_INT.withName("rkey"), paddingLayout(4)).withName("atomic"),
                    structLayout(ADDRESS.withName("ah"), JAVA_INT.withName("remote_qpn"),
                            JAVA_INT.withName("remote_qkey")).withName("ud")).withName("wr"),
            JAVA_INT.withName("qp_type"),           // union { struct { uint32_t remote_srqn; } xrc; }
            paddingLayout(4),
            structLayout(                           // union { bind_mw; tso; }: tso (raw packet QPs) unused here
                    ADDRESS.withName("mw"), JAVA_INT.withName("rkey"), paddingLayout(4),
                    IBV_MW_BIND_INFO.withName("bind_info")).withName("bind_mw")
    ).withName("ibv_send_wr");

    static final StructLayout IBV_RECV_WR = structLayout(
            JAVA_LONG.withName("wr_id"),
            ADDRESS.withName("next"),
            ADDRESS.withName("sg_list"),
            JAVA_INT.withName("num_sge"),
            paddingLayout(4)).withName("ibv_recv_wr");

    static final StructLayout IBV_COMP_CHANNEL = structLayout(
            ADDRESS.withName("context"),
            JAVA_INT.withName("fd"),
            JAVA_INT.withName("refcnt")).withName("ibv_comp_channel");

    static final StructLayout IBV_CQ = structLayout(
            ADDRESS.withName("context"),
            ADDRESS.withName("channel"),
            ADDRESS.withName("cq_context"),
            JAVA_INT.withName("handle"),
            JAVA_INT.withName("cqe"),
            PTHREAD_MUTEX,
            PTHREAD_COND,
            JAVA_INT.withName("comp_events_completed"),
            JAVA_INT.withName("async_events_completed")).withName("ibv_cq");

    static final StructLayout IBV_QP = structLayout(
            ADDRESS.withName("context"),
            ADDRESS.withName("qp_context"),
            ADDRESS.withName("pd"),
            ADDRESS.withName("send_cq"),
            ADDRESS.withName("recv_cq"),
            ADDRESS.withName("srq"),
            JAVA_INT.withName("handle"),
            JAVA_INT.withName("qp_num"),
            JAVA_INT.withName("state"),
            JAVA_INT.withName("qp_type"),
            PTHREAD_MUTEX,
            PTHREAD_COND,
            JAVA_INT.withName("events_completed"),
            paddingLayout(4)).withName("ibv_qp");

    static final StructLayout IBV_SRQ = structLayout(
            ADDRESS.withName("context"),
            ADDRESS.withName("srq_context"),
            ADDRESS.withName("pd"),
            JAVA_INT.withName("handle"),
            paddingLayout(4),
            PTHREAD_MUTEX,
            PTHREAD_COND,
            JAVA_INT.withName("events_completed"),
            paddingLayout(4)).withName("ibv_srq");

    /** The function pointers of {@code struct ibv_context_ops}, in order; {@code _compat_*} are unused slots. */
    static final List<String> CONTEXT_OPS = List.of(
            "_compat_query_device", "_compat_query_port", "_compat_alloc_pd", "_compat_dealloc_pd",
            "_compat_reg_mr", "_compat_rereg_mr", "_compat_dereg_mr", "alloc_mw", "bind_mw", "dealloc_mw",
            "_compat_create_cq", "poll_cq", "req_notify_cq", "_compat_cq_event", "_compat_resize_cq",
            "_compat_destroy_cq", "_compat_create_srq", "_compat_modify_srq", "_compat_query_srq",
            "_compat_destroy_srq", "post_srq_recv", "_compat_create_qp", "_compat_query_qp",
            "_compat_modify_qp", "_compat_destroy_qp", "post_send", "post_recv", "_compat_create_ah",
            "_compat_destroy_ah", "_compat_attach_mcast", "_compat_detach_mcast", "_compat_async_event");

    static final StructLayout IBV_CONTEXT_OPS = structLayout(
            CONTEXT_OPS.stream().map(name -> ADDRESS.withName(name)).toArray(MemoryLayout[]::new))
            .withName("ibv_context_ops");

    static final StructLayout IBV_CONTEXT = structLayout(
            ADDRESS.withName("device"),
            IBV_CONTEXT_OPS.withName("ops"),
            JAVA_INT.withName("cmd_fd"),
            JAVA_INT.withName("async_fd"),
            JAVA_INT.withName("num_comp_vectors"),
            paddingLayout(4),
            PTHREAD_MUTEX,
            ADDRESS.withName("abi_compat")).withName("ibv_context");

    /**
     * The fields of {@code struct verbs_context} before its {@code struct ibv_context}, in order. The
     * struct "grows up": new members are added before {@code query_port}, so every offset counted back
     * from {@code context} stays the same in every rdma-core release.
     */
    static final List<String> VERBS_CONTEXT_FIELDS = List.of(
            "query_port", "advise_mr", "alloc_null_mr", "read_counters", "attach_counters_point_flow",
            "create_counters", "destroy_counters", "reg_dm_mr", "alloc_dm", "free_dm",
            "modify_flow_action_esp", "destroy_flow_action", "create_flow_action_esp", "modify_qp_rate_limit",
            "alloc_parent_domain", "dealloc_td", "alloc_td", "modify_cq", "post_srq_ops",
            "destroy_rwq_ind_table", "create_rwq_ind_table", "destroy_wq", "modify_wq", "create_wq",
            "query_rt_values", "create_cq_ex", "priv", "query_device_ex", "ibv_destroy_flow",
            "ABI_placeholder2", "ibv_create_flow", "ABI_placeholder1", "open_qp", "create_qp_ex",
            "get_srq_num", "create_srq_ex", "open_xrcd", "close_xrcd", "_ABI_placeholder3", "sz");

    static final StructLayout VERBS_CONTEXT = structLayout(
            concat(VERBS_CONTEXT_FIELDS.stream()
                    .map(name -> name.equals("_ABI_placeholder3") || name.equals("sz")
                            ? JAVA_LONG.withName(name) : ADDRESS.withName(name))
                    .toArray(MemoryLayout[]::new), IBV_CONTEXT.withName("context")))
            .withName("verbs_context");

    /** {@code struct pollfd} of poll(2). */
    static final StructLayout POLLFD = structLayout(
            JAVA_INT.withName("fd"), JAVA_SHORT.withName("events"), JAVA_SHORT.withName("revents")).withName("pollfd");

    /** Every struct above whose layout is checked against the C compiler. */
    static final List<MemoryLayout> CHECKED = List.of(IBV_GID, IBV_GID_ENTRY, IBV_DEVICE_ATTR, IBV_PORT_ATTR, IBV_ASYNC_EVENT,
            IBV_WC, IBV_PD, IBV_MR, IBV_GLOBAL_ROUTE, IBV_AH_ATTR, IBV_SRQ_ATTR, IBV_SRQ_INIT_ATTR, IBV_QP_CAP,
            IBV_QP_INIT_ATTR, IBV_QP_ATTR, IBV_SGE, IBV_SEND_WR, IBV_RECV_WR, IBV_COMP_CHANNEL, IBV_CQ, IBV_QP,
            IBV_SRQ, IBV_CONTEXT_OPS, IBV_CONTEXT, VERBS_CONTEXT, IBV_MW, IBV_MW_BIND_INFO, IBV_MW_BIND);

    /** Byte offset of a dotted field path such as {@code "wr.rdma.remote_addr"} or {@code "ops.post_send"}. */
    static long offset(MemoryLayout layout, String path) {
        PathElement[] elements = Arrays.stream(path.split("\\.")).map(PathElement::groupElement)
                .toArray(PathElement[]::new);
        return layout.byteOffset(elements);
    }

    private static MemoryLayout[] concat(MemoryLayout[] first, MemoryLayout last) {
        MemoryLayout[] all = Arrays.copyOf(first, first.length + 1);
        all[first.length] = last;
        return all;
    }
}
