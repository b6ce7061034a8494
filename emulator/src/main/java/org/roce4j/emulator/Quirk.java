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
     * A work request the requester itself fails (an opcode the QP type does not allow, an SGE beyond its
     * region or with a key that names none, a LOCAL_INV that fails) moves the QP to ERR at once, and the
     * completer then flushes the whole send queue: the poller sees WR_FLUSH_ERR for every WQE not yet
     * completed — the failing one and any earlier one still in flight included — in posting order, never
     * the WQE's own LOC_QP_OP_ERR/LOC_PROT_ERR. {@code rxe_req.c rxe_requester} (kernel 6.10+, "RDMA/rxe:
     * Fix multiple rxe_qp_error calls") ends its {@code err:} path in {@code rxe_qp_error(qp)}, and
     * {@code rxe_comp.c rxe_completer} flushes the send queue of a QP in ERR ({@code flush_send_queue}).
     */
    REQUESTER_ERRORS_FLUSH_THE_SEND_QUEUE,
    /**
     * A send SGE whose lkey names no valid region (deregistered, say) completes LOC_QP_OP_ERR, not
     * LOC_PROT_ERR; one beyond its region is still LOC_PROT_ERR. Kernel 6.1's {@code rxe_mr.c copy_data}
     * returns -EINVAL when {@code lookup_mr} finds nothing, -ENOSPC when the SGEs run out before the WQE's
     * length (rdma-core 44's wr_set_sge_list, {@link #WR_SET_SGE_LIST_LENGTH_IS_COUNT_TIMES_FIRST}) and -EFAULT
     * from {@code mr_check_range}; {@code rxe_req.c rxe_requester} maps -EFAULT to IB_WC_LOC_PROT_ERR and
     * anything else to IB_WC_LOC_QP_OP_ERR (seen on rxe0 for both).
     */
    UNKNOWN_SEND_LKEY_IS_LOC_QP_OP_ERR,
    /**
     * An MR from {@code ibv_reg_mr} cannot be invalidated (only memory windows and fast-registration MRs
     * can): LOCAL_INV of its rkey fails (LOC_QP_OP_ERR) and SEND_WITH_INV naming it fails the receive.
     * {@code rxe_mr.c rxe_invalidate_mr}: an MR whose type is not IB_MR_TYPE_MEM_REG is -EINVAL.
     */
    ORDINARY_MRS_CANNOT_BE_INVALIDATED,
    /**
     * A SEND_WITH_INV whose invalidation fails is acknowledged: the requester completes SUCCESS, the
     * receive REM_INV_REQ_ERR and the responder's QP goes to ERR. {@code rxe_resp.c}: RESPST_ERR_INVALIDATE_RKEY
     * is "RC - Class J" (goto_error, status IB_WC_REM_INV_REQ_ERR, then COMPLETE and ACKNOWLEDGE with
     * the ACK already due) — where IBTA's invalid-request NAK would fail the requester.
     */
    FAILED_SEND_INVALIDATE_IS_ACKNOWLEDGED,
    /**
     * A message that cannot be placed in its receive WQE's buffers (too long for them, an lkey that names
     * no region of the PD) fails the receive as a malformed WQE: LOC_QP_OP_ERR, NAK "remote operational
     * error" (the requester sees REM_OP_ERR), QP to ERR. {@code rxe_resp.c send_data_in}: {@code copy_data}
     * answers -EINVAL for both, which is RESPST_ERR_MALFORMED_WQE ("All, Class A"); IBTA 11.6.2 has
     * LOC_LEN_ERR for the first and the emulator LOC_PROT_ERR for the second.
     */
    RECEIVE_BUFFER_ERRORS_ARE_LOC_QP_OP_ERR,
    /**
     * A UD datagram longer than the receive buffer fails the receive LOC_QP_OP_ERR and takes the UD QP
     * to ERR (kernel 6.1: the malformed-WQE path of {@link #RECEIVE_BUFFER_ERRORS_ARE_LOC_QP_OP_ERR}); newer
     * rxe's {@code check_length} drops it first (RESPST_ERR_LENGTH, "UC/UD - class D"), as the default does.
     */
    UD_DATAGRAM_TOO_LONG_FAILS_THE_RECEIVE,
    /**
     * A receive WQE's buffers are checked against the QP's PD even when it came from an SRQ of another
     * PD, so a buffer of the SRQ's PD fails ({@link #RECEIVE_BUFFER_ERRORS_ARE_LOC_QP_OP_ERR} says how).
     * {@code rxe_resp.c send_data_in}: {@code copy_data(qp->pd, ...)}; rdmavt's {@code init_sge} uses the
     * SRQ's PD, as the default does.
     */
    RECEIVE_BUFFERS_CHECKED_AGAINST_THE_QPS_PD,
    /**
     * A receive posted to a QP already in ERR is queued and never completed (a send posted then is still
     * flushed). Kernel 6.1's {@code rxe_post_recv} queues it and nothing drains the receive queue again
     * (rxe.txt [8]); rxe0 under 6.12 flushes it, as the default does (the commit that changed it is not
     * identified).
     */
    RECEIVES_POSTED_IN_ERROR_ARE_NOT_FLUSHED,
    /**
     * Polling a CQ after an overrun returns what the ring holds (no EINVAL); the lost completion raised
     * CQ_ERR and a later completion fits again once the ring has room. {@code rxe_cq.c rxe_cq_post}: a full
     * queue raises IB_EVENT_CQ_ERR and returns -EBUSY, nothing else; the user-space ring is polled as ever.
     */
    POLL_AFTER_CQ_OVERRUN_SUCCEEDS,
    /**
     * A UD datagram that loops back inside one device carries, in the GRH its receive gets, an IPv4 header
     * whose checksum does not verify: {@code rxe_net.c rxe_loopback} hands the skb to {@code rxe_rcv}
     * without {@code ip_local_out} having computed it. Over a link it is computed as ever.
     */
    LOOPBACK_IPV4_CHECKSUM_NOT_COMPUTED,
    /**
     * A UD work request's Q_Key with bit 31 set is sent as it is, where IBTA 10.2.5 has the QP's own
     * Q_Key sent instead; the receiver then drops the datagram on a Q_Key mismatch.
     * {@code rxe_req.c init_req_packet}: {@code deth_set_qkey(pkt, ibwr->wr.ud.remote_qkey)}, no test of
     * the high bit (a C check on 6.1; the suite on 6.12 shows it too).
     */
    WR_QKEY_HIGH_BIT_SENT_AS_GIVEN,
    /**
     * UC SQD -> SQD with any optional attribute is EINVAL (with none it succeeds). Seen on rxe0 under 6.1
     * and 6.12 (rxe.txt [2]); the rule in the source that refuses it is not identified (the core table allows
     * these attributes; rxe refuses SQD -> anything but ERR while {@code sq_draining}, which a UC QP clears
     * only when its completer runs — a race the observation may be of).
     */
    UC_SQD_TO_SQD_REFUSES_OPTIONAL_ATTRIBUTES,
    /**
     * A modify whose mask lacks STATE is not checked against the transition table, so it may change an
     * attribute the table allows in no same-state transition (TIMEOUT in RTS, say); each attribute's own
     * range check still applies, and a modify with STATE is checked as ever. Since "RDMA/rxe: Protect QP
     * state with qp->state_lock" (6.4), {@code rxe_qp_from_attr} calls {@code __qp_chk_state} (which holds
     * the {@code ib_modify_qp_is_ok} call that {@code rxe_qp_chk_attr} made for every modify before) only
     * {@code if (mask & IB_QP_STATE)}. Seen on rxe0 under 6.12 ({@code QpStateMachineTest#modifyWithoutStateStays}).
     */
    MODIFY_WITHOUT_STATE_SKIPS_THE_TRANSITION_TABLE,
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
     * {@code ibv_query_device} shows it on 6.1 and 6.12: 0x1223c76), fast registration (MEM_MGT_EXTENSIONS)
     * included, which the emulator does not implement; the default reports only what the emulator does.
     */
    REPORTS_RXE_DEVICE_CAP_FLAGS,
    /**
     * Kernel 6.1 predates IBTA 1.5's ATOMIC WRITE and FLUSH (rxe has them since 6.2): {@code device_cap_flags_ex}
     * has neither {@code IB_UVERBS_DEVICE_ATOMIC_WRITE} nor the FLUSH placement types, and an ATOMIC WRITE work
     * request (which rdma-core 44's provider builds all the same) finds no RC opcode in the requester: it completes
     * LOC_QP_OP_ERR (rxe_req.c next_opcode_rc of 6.1 has no IB_WR_ATOMIC_WRITE case).
     */
    PREDATES_ATOMIC_WRITE_AND_FLUSH,
    /**
     * {@code ibv_create_cq_ex} gives no completion timestamps: rdma-core 44's rxe provider refuses every
     * {@code wc_flags} bit beyond IBV_WC_STANDARD_FLAGS with EOPNOTSUPP (providers/rxe/rxe.c RXE_SUP_WC_EX_FLAGS),
     * IBV_WC_EX_WITH_COMPLETION_TIMESTAMP included; the default model stamps each completion with the fabric's
     * clock (virtual ns on a deterministic fabric).
     */
    CQ_HAS_NO_COMPLETION_TIMESTAMPS,
    /**
     * {@code ibv_wr_set_sge_list} sets the WQE's length to the SGE count times the first SGE's length: rdma-core
     * 44's rxe provider sums {@code sg_list->length} without advancing ({@code while (num_sge--) tot_length +=
     * sg_list->length;}, fixed in rdma-core 64 by "rxe: Fix dma.length computation in wr_set_sge_list"). SGEs of
     * unequal lengths then make the requester copy past the list (LOC_PROT_ERR; 6.12 flushes it,
     * {@link #REQUESTER_ERRORS_FLUSH_THE_SEND_QUEUE}) or send too few bytes. Measured on 6.12 (ExtendedQpTest).
     */
    WR_SET_SGE_LIST_LENGTH_IS_COUNT_TIMES_FIRST,
    /**
     * A remote access through a memory window is held to the bounds of the region behind it, not to the
     * window's own: {@code rxe_resp.c check_rkey} resolves a window's rkey with {@code rxe_lookup_mw} (key,
     * PD, QP, rights, state) and then calls {@code mr_check_range(mr, va, resid)} on the window's MR, so a
     * peer holding the window's rkey reaches every byte of the region. IBTA 10.6.7 (C10-76 ... the access
     * must lie within the window) refuses it, as the default does (REM_ACCESS_ERR).
     */
    WINDOW_ACCESS_CHECKED_AGAINST_ITS_REGION_ONLY,
    /**
     * The receive of a SEND_WITH_INV carries IBV_WC_IP_CSUM_OK in {@code wc_flags} instead of IBV_WC_WITH_INV
     * (invalidated_rkey is right): {@code rxe_resp.c do_complete} sets the kernel's {@code IB_WC_WITH_INVALIDATE}
     * ({@code 1 << 2}) in the {@code ib_uverbs_wc} that the rxe provider hands to the poller as it is, and
     * libibverbs' {@code 1 << 2} is IBV_WC_IP_CSUM_OK (IBV_WC_WITH_INV is {@code 1 << 3}). Seen on rxe0 under 6.12
     * (WITH_INV absent, {@code MemoryWindowTest#sendWithInvalidateFreesAType2Window}); the IP_CSUM_OK bit is read
     * from the source.
     */
    WITH_INV_REPORTED_AS_IP_CSUM_OK,
    /**
     * A region registered without remote rights gets rkey 0: kernel 6.1's {@code rxe_mr_init_user} sets
     * {@code mr->rkey = (access & IB_ACCESS_REMOTE) ? key : 0}; later rxe, and mlx5, give every region an rkey equal
     * to its lkey (a remote access through it still fails on its rights). Measured with rxe-probe-capacities.c.
     */
    RKEY_ZERO_WITHOUT_REMOTE_ACCESS,
    /**
     * No on-demand paging: rxe gained ODP in kernel 6.14 ({@code rxe_odp.c}), so before it {@code odp_caps} is
     * all 0, {@code ib_check_mr_access} refuses IBV_ACCESS_ON_DEMAND (no IBK_ON_DEMAND_PAGING: EOPNOTSUPP, on
     * 6.1 EINVAL, {@link #ON_DEMAND_REFUSED_WITH_EINVAL}) and {@code ibv_advise_mr} returns EOPNOTSUPP (the
     * device has no {@code advise_mr}). Measured on rxe0 of 6.1 and 6.12 with rdma-core 44
     * ({@code ibverbs/src/test/c/rxe-probe-odp.c}).
     */
    NO_ON_DEMAND_PAGING,
    /**
     * A device without ODP refuses an IBV_ACCESS_ON_DEMAND registration with EINVAL, not EOPNOTSUPP: kernel 6.1's
     * {@code ib_check_mr_access} returned -EINVAL for it (later kernels -EOPNOTSUPP, as 6.12 does). A region
     * asking REMOTE_WRITE without LOCAL_WRITE is EINVAL on both, checked first. Measured with rxe-probe-odp.c.
     */
    ON_DEMAND_REFUSED_WITH_EINVAL,
    /**
     * The library has no {@code ibv_wr_flush}: rdma-core 44's rxe provider leaves IBV_QP_EX_WITH_FLUSH out of
     * {@code RXE_SUP_RC_QP_SEND_OPS_FLAGS}, so {@code ibv_create_qp_ex} asking for it fails EOPNOTSUPP
     * (providers/rxe/rxe.c check_qp_init_attr; rdma-core 45 added it with {@code wr_flush} in {@code struct
     * ibv_qp_ex}). Kernel 6.12's rxe executes FLUSH all the same, as a responder (interop/flush shows it).
     */
    PROVIDER_HAS_NO_WR_FLUSH,
    /**
     * An RC FLUSH carries, and must carry, an ICRC that counts its BTH, FETH and RETH twice: {@code rxe_icrc.c}
     * runs the CRC over the masked headers and then over the "payload" at {@code rxe_opcode[opcode].offset[RXE_PAYLOAD]},
     * which the RC FLUSH row of {@code rxe_opcode.c} leaves 0, so the 32 bytes from the BTH go in again
     * ({@link org.roce4j.wire.IcrcCalculator}). rxe drops an RC FLUSH with IBTA's ICRC as a bad ICRC, and puts its own
     * on the FLUSHes it sends; rxe-to-rxe works because both ends agree. Seen on rxe0 of 6.12: no answer to IBTA-ICRC
     * FLUSHes from the emulator, every FLUSH answered once the emulator computed rxe's ({@code interop/flush}).
     */
    RC_FLUSH_ICRC_COUNTS_ITS_HEADERS_TWICE,
    /**
     * A region registers with IBV_ACCESS_ZERO_BASED (a memory window's right): kernel 6.1's {@code rxe_reg_user_mr}
     * checks no access bits, and the region then works as any other, except that no window binds to it
     * ({@code rxe_check_bind_mw}: "attempt to bind MW to zero based MR", MW_BIND_ERR). Later rxe refuses it with
     * EOPNOTSUPP ({@code RXE_ACCESS_SUPPORTED_MR}), as the default does. Checked by conformance
     * {@code ZeroBasedWindowTest#aRegionCannotBeZeroBased}.
     */
    ZERO_BASED_REGIONS_REGISTERED,
}
