package org.roce4j.verbs;

/**
 * An extended completion queue: {@code struct ibv_cq_ex}, from {@link Context#createCqEx}. It is also an
 * ordinary {@link Cq} (QPs take it; {@code ibv_poll_cq} works on it). Its own way to poll reads the fields of
 * each completion in place, without copying it out:
 *
 * <pre>{@code
 * if (cq.startPoll() == 0) {            // ENOENT: empty, and then no endPoll
 *     do {
 *         handle(cq.wrId(), cq.status(), cq.readOpcode(), cq.readByteLen());
 *     } while (cq.nextPoll() == 0);     // ENOENT: no more
 *     cq.endPoll();                     // consumes what was read
 * }
 * }</pre>
 *
 * A read of a field the CQ was not created for ({@link CqInitAttrEx#wcFlags()}) calls a NULL function pointer
 * in C (rdma-core's rxe sets {@code read_byte_len} and the others only when asked); here it throws
 * {@link VerbsException} EOPNOTSUPP. So do reads outside {@code startPoll} … {@code endPoll} (EINVAL).
 * Note: rdma-core 44's rxe provider moves the consumer index one entry too far when {@link #endPoll()}
 * follows a {@link #nextPoll()} that answered ENOENT (fixed in rdma-core by "rxe: fix completion queue
 * consumer index overrun", 2024); {@code docs/api-mapping.md} says more.
 */
public interface CqEx extends Cq {
    /** {@return the fields this CQ's completions carry: its {@code wc_flags}} */
    java.util.Set<CreateCqWcFlag> wcFlags();

    /** {@return 0 with the first completion current, or ENOENT's number when the CQ is empty: {@code ibv_start_poll}} */
    int startPoll();

    /** {@return 0 with the next completion current, or ENOENT's number when there is none: {@code ibv_next_poll}} */
    int nextPoll();

    /** {@code ibv_end_poll}: the completions read since {@link #startPoll()} are consumed. */
    void endPoll();

    /** {@return the current completion's wr_id ({@code cq->wr_id})} */
    long wrId();

    /** {@return the current completion's status ({@code cq->status})} */
    WcStatus status();

    /** {@return {@code ibv_wc_read_opcode}} */
    WcOpcode readOpcode();

    /** {@return {@code ibv_wc_read_vendor_err}} */
    int readVendorErr();

    /** {@return {@code ibv_wc_read_byte_len}} (BYTE_LEN) */
    int readByteLen();

    /** {@return {@code ibv_wc_read_imm_data}, as {@link WorkCompletion#immData()} gives it} (IMM) */
    int readImmData();

    /** {@return {@code ibv_wc_read_qp_num}} (QP_NUM) */
    int readQpNum();

    /** {@return {@code ibv_wc_read_src_qp}} (SRC_QP) */
    int readSrcQp();

    /** {@return {@code ibv_wc_read_wc_flags}: {@link WcFlag} bits} */
    int readWcFlags();

    /** {@return {@code ibv_wc_read_slid}} (SLID) */
    int readSlid();

    /** {@return {@code ibv_wc_read_sl}} (SL) */
    int readSl();

    /** {@return {@code ibv_wc_read_dlid_path_bits}} (DLID_PATH_BITS) */
    int readDlidPathBits();

    /** {@return {@code ibv_wc_read_completion_ts}: when the completion was made, in the device's clock} (COMPLETION_TIMESTAMP) */
    long readCompletionTs();
}
