package org.roce4j.emulator;

/**
 * One way a modelled device departs from the default model (IBTA and the rules every Linux RDMA
 * device follows). A {@link DeviceProfile} is the set of its quirks; behaviour code asks
 * {@link DeviceModel#has(Quirk)} about one rule, never which device it is (DESIGN.md §4). Each entry
 * cites the source it imitates, and the departures list of the profile's real device
 * ({@code conformance/.../departures/rxe-*.txt}) names the quirk that explains each of its lines.
 */
public enum Quirk {
    /**
     * retry_cnt 7 retries forever after timeouts and sequence NAKs: {@code rxe_comp.c rxe_completer}
     * ({@code if (qp->comp.retry_cnt != 7) qp->comp.retry_cnt--}); IBTA 9.7.6.1.3 (C9-141) counts seven.
     */
    RETRY_COUNT_SEVEN_IS_INFINITE,
    /**
     * A work queue (send, receive, SRQ) or CQ asked for n entries holds 2^k - 1 >= n: {@code rxe_queue.c
     * rxe_queue_init} ({@code num_slots = roundup_pow_of_two(n + 1)}, one slot kept free), and
     * {@code ibv_query_qp}, {@code ibv_query_srq} and {@code cq->cqe} report that depth. Measured on kernels
     * 6.1 and 6.12 ({@code ibverbs/src/test/c/rxe-probe-capacities.c}: 4 asked, 7 held; 8 asked, 15 held; 3 and
     * 1 exactly). IBTA 11.2.4.1 lets a CI grant at least what was asked.
     */
    QUEUE_DEPTH_ROUNDED_TO_POWER_OF_TWO_MINUS_ONE,
    /**
     * {@code ibv_create_qp} writes back the depths asked for, not the ones granted (kernel 6.1's
     * {@code rxe_qp_init_req} rounds {@code qp->sq.max_wr} but leaves {@code init->cap} alone; 6.12 writes the
     * rounded depth back): a program that trusts the returned cap under-fills the queue; {@code ibv_query_qp}
     * reports the true depth. Probe: 4 asked, create reports 4, query 7, the 8th post is ENOMEM.
     */
    CREATE_QP_REPORTS_REQUESTED_DEPTH,
    /**
     * A send WQE has one data area for SGEs and inline data: {@code rxe_qp.c rxe_qp_init_req} sizes it
     * {@code max(max_send_sge * sizeof(struct ib_sge), max_inline_data)} and grants both from it
     * ({@code max_send_sge = size / 16}, {@code max_inline_data = size}), and {@code ibv_create_qp} and
     * {@code ibv_query_qp} report that on 6.1 and 6.12 (probe: 1 SGE and no inline asked, 16 bytes of inline
     * granted).
     */
    SEND_SGES_AND_INLINE_SHARE_ONE_WQE_SIZE,
    /**
     * {@code ibv_rereg_mr} is not supported: rdma-core 44's rxe provider sets no {@code rereg_mr} op, so after
     * libibverbs' own input checks (IBV_REREG_MR_ERR_INPUT, EINVAL) every call fails IBV_REREG_MR_ERR_CMD with
     * EOPNOTSUPP before reaching the kernel (whose {@code rxe_rereg_user_mr} would take CHANGE_PD and
     * CHANGE_ACCESS) -- flags 0 included, which the kernel would refuse EINVAL. Measured the same on 6.1 and 6.12
     * ({@code rxe-probe-capacities.c}).
     */
    REREG_MR_NOT_SUPPORTED,
    /**
     * {@code ibv_query_device} reports rxe's {@code device_cap_flags} (rxe_param.h RXE_DEVICE_CAP_FLAGS; as
     * {@code ibv_query_device} shows it on 6.1 and 6.12: 0x1223c76), memory windows and fast registration
     * included, which the emulator does not implement; the default reports only what the emulator does.
     */
    REPORTS_RXE_DEVICE_CAP_FLAGS,
}
