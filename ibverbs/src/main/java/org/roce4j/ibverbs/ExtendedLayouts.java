package org.roce4j.ibverbs;

import static java.lang.foreign.MemoryLayout.paddingLayout;
import static java.lang.foreign.MemoryLayout.structLayout;
import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.StructLayout;
import java.util.List;

/**
 * The structs of the extended verbs ({@code ibv_create_qp_ex} and its {@code struct ibv_qp_ex} of
 * {@code ibv_wr_*} function pointers, {@code ibv_query_device_ex}), by hand as {@link Layouts} are, and
 * checked against gcc by the same test.
 */
final class ExtendedLayouts {
    private ExtendedLayouts() {
    }

    /** {@code struct ibv_rx_hash_conf}, inside {@code ibv_qp_init_attr_ex}. */
    static final StructLayout IBV_RX_HASH_CONF = structLayout(
            JAVA_BYTE.withName("rx_hash_function"),
            JAVA_BYTE.withName("rx_hash_key_len"),
            paddingLayout(6),
            ADDRESS.withName("rx_hash_key"),
            JAVA_LONG.withName("rx_hash_fields_mask")).withName("ibv_rx_hash_conf");

    static final StructLayout IBV_QP_INIT_ATTR_EX = structLayout(
            ADDRESS.withName("qp_context"),
            ADDRESS.withName("send_cq"),
            ADDRESS.withName("recv_cq"),
            ADDRESS.withName("srq"),
            Layouts.IBV_QP_CAP.withName("cap"),
            JAVA_INT.withName("qp_type"),
            JAVA_INT.withName("sq_sig_all"),
            JAVA_INT.withName("comp_mask"),
            ADDRESS.withName("pd"),
            ADDRESS.withName("xrcd"),
            JAVA_INT.withName("create_flags"),
            JAVA_SHORT.withName("max_tso_header"),
            paddingLayout(2),
            ADDRESS.withName("rwq_ind_tbl"),
            IBV_RX_HASH_CONF.withName("rx_hash_conf"),
            JAVA_INT.withName("source_qpn"),
            paddingLayout(4),
            JAVA_LONG.withName("send_ops_flags")).withName("ibv_qp_init_attr_ex");

    /** The {@code ibv_wr_*} function pointers of {@code struct ibv_qp_ex}, in order. */
    static final List<String> QP_EX_OPS = List.of(
            "wr_atomic_cmp_swp", "wr_atomic_fetch_add", "wr_bind_mw", "wr_local_inv", "wr_rdma_read", "wr_rdma_write",
            "wr_rdma_write_imm", "wr_send", "wr_send_imm", "wr_send_inv", "wr_send_tso", "wr_set_ud_addr",
            "wr_set_xrc_srqn", "wr_set_inline_data", "wr_set_inline_data_list", "wr_set_sge", "wr_set_sge_list",
            "wr_start", "wr_complete", "wr_abort", "wr_atomic_write");

    static final StructLayout IBV_QP_EX = structLayout(concat(List.of(
            Layouts.IBV_QP.withName("qp_base"),
            JAVA_LONG.withName("comp_mask"),
            JAVA_LONG.withName("wr_id"),
            JAVA_INT.withName("wr_flags"),
            paddingLayout(4)), QP_EX_OPS)).withName("ibv_qp_ex");

    /**
     * Where rdma-core 45's {@code wr_flush} lies in {@code struct ibv_qp_ex}: right after {@code wr_atomic_write},
     * the last member of rdma-core 44's struct (verbs.h of v45.0 appends it there), so at 44's {@code sizeof}.
     */
    static final long WR_FLUSH_OFFSET = IBV_QP_EX.byteSize();

    /** {@code struct ibv_data_buf}: one buffer of {@code ibv_wr_set_inline_data_list}. */
    static final StructLayout IBV_DATA_BUF = structLayout(
            ADDRESS.withName("addr"),
            JAVA_LONG.withName("length")).withName("ibv_data_buf");

    static final StructLayout IBV_QUERY_DEVICE_EX_INPUT = structLayout(
            JAVA_INT.withName("comp_mask")).withName("ibv_query_device_ex_input");

    static final StructLayout IBV_DEVICE_ATTR_EX = structLayout(
            Layouts.IBV_DEVICE_ATTR.withName("orig_attr"),
            JAVA_INT.withName("comp_mask"),
            paddingLayout(4),
            structLayout(JAVA_LONG.withName("general_caps"),
                    structLayout(JAVA_INT.withName("rc_odp_caps"), JAVA_INT.withName("uc_odp_caps"),
                            JAVA_INT.withName("ud_odp_caps")).withName("per_transport_caps"),
                    paddingLayout(4)).withName("odp_caps"),
            JAVA_LONG.withName("completion_timestamp_mask"),
            JAVA_LONG.withName("hca_core_clock"),
            JAVA_LONG.withName("device_cap_flags_ex"),
            structLayout(JAVA_INT.withName("max_tso"), JAVA_INT.withName("supported_qpts")).withName("tso_caps"),
            structLayout(JAVA_INT.withName("supported_qpts"), JAVA_INT.withName("max_rwq_indirection_tables"),
                    JAVA_INT.withName("max_rwq_indirection_table_size"), paddingLayout(4),
                    JAVA_LONG.withName("rx_hash_fields_mask"), JAVA_BYTE.withName("rx_hash_function"),
                    paddingLayout(7)).withName("rss_caps"),
            JAVA_INT.withName("max_wq_type_rq"),
            structLayout(JAVA_INT.withName("qp_rate_limit_min"), JAVA_INT.withName("qp_rate_limit_max"),
                    JAVA_INT.withName("supported_qpts")).withName("packet_pacing_caps"),
            JAVA_INT.withName("raw_packet_caps"),
            structLayout(JAVA_INT.withName("max_rndv_hdr_size"), JAVA_INT.withName("max_num_tags"),
                    JAVA_INT.withName("flags"), JAVA_INT.withName("max_ops"), JAVA_INT.withName("max_sge"))
                    .withName("tm_caps"),
            structLayout(JAVA_SHORT.withName("max_cq_count"), JAVA_SHORT.withName("max_cq_period")).withName("cq_mod_caps"),
            paddingLayout(4),
            JAVA_LONG.withName("max_dm_size"),
            structLayout(JAVA_SHORT.withName("fetch_add"), JAVA_SHORT.withName("swap"),
                    JAVA_SHORT.withName("compare_swap")).withName("pci_atomic_caps"),
            paddingLayout(2),
            JAVA_INT.withName("xrc_odp_caps"),
            JAVA_INT.withName("phys_port_cnt_ex")).withName("ibv_device_attr_ex");

    static final StructLayout IBV_CQ_INIT_ATTR_EX = structLayout(
            JAVA_INT.withName("cqe"),
            paddingLayout(4),
            ADDRESS.withName("cq_context"),
            ADDRESS.withName("channel"),
            JAVA_INT.withName("comp_vector"),
            paddingLayout(4),
            JAVA_LONG.withName("wc_flags"),
            JAVA_INT.withName("comp_mask"),
            JAVA_INT.withName("flags"),
            ADDRESS.withName("parent_domain")).withName("ibv_cq_init_attr_ex");

    static final StructLayout IBV_POLL_CQ_ATTR = structLayout(JAVA_INT.withName("comp_mask")).withName("ibv_poll_cq_attr");

    /** The poll and read function pointers of {@code struct ibv_cq_ex}, in order. */
    static final List<String> CQ_EX_OPS = List.of(
            "start_poll", "next_poll", "end_poll", "read_opcode", "read_vendor_err", "read_byte_len", "read_imm_data",
            "read_qp_num", "read_src_qp", "read_wc_flags", "read_slid", "read_sl", "read_dlid_path_bits",
            "read_completion_ts", "read_cvlan", "read_flow_tag", "read_tm_info", "read_completion_wallclock_ns");

    /** {@code struct ibv_cq_ex}: the fields of {@code struct ibv_cq}, then the poll state and the function pointers. */
    static final StructLayout IBV_CQ_EX = structLayout(concat(List.of(
            ADDRESS.withName("context"),
            ADDRESS.withName("channel"),
            ADDRESS.withName("cq_context"),
            JAVA_INT.withName("handle"),
            JAVA_INT.withName("cqe"),
            Layouts.PTHREAD_MUTEX,
            Layouts.PTHREAD_COND,
            JAVA_INT.withName("comp_events_completed"),
            JAVA_INT.withName("async_events_completed"),
            JAVA_INT.withName("comp_mask"),
            JAVA_INT.withName("status"),
            JAVA_LONG.withName("wr_id")), CQ_EX_OPS)).withName("ibv_cq_ex");

    /** Every struct above, for LayoutsMatchGccTest. */
    static final List<MemoryLayout> CHECKED = List.of(IBV_RX_HASH_CONF, IBV_QP_INIT_ATTR_EX, IBV_QP_EX, IBV_DATA_BUF,
            IBV_QUERY_DEVICE_EX_INPUT, IBV_DEVICE_ATTR_EX, IBV_CQ_INIT_ATTR_EX, IBV_POLL_CQ_ATTR, IBV_CQ_EX);

    private static MemoryLayout[] concat(List<MemoryLayout> head, List<String> pointers) {
        MemoryLayout[] all = new MemoryLayout[head.size() + pointers.size()];
        for (int i = 0; i < head.size(); i++) {
            all[i] = head.get(i);
        }
        for (int i = 0; i < pointers.size(); i++) {
            all[head.size() + i] = ADDRESS.withName(pointers.get(i));
        }
        return all;
    }
}
