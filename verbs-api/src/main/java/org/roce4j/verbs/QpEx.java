package org.roce4j.verbs;

import java.lang.foreign.MemorySegment;
import java.util.List;

/**
 * An extended queue pair: {@code struct ibv_qp_ex}, from {@link Pd#createQpEx}. Besides everything a
 * {@link Qp} does, it posts send work requests through the {@code ibv_wr_*} builder: {@link #wrStart},
 * then for each request its {@link #wrId(long) wr_id} and {@link #wrFlags(int) wr_flags}, one operation
 * call ({@link #wrSend}, {@link #wrRdmaWrite}, …) and its data ({@link #wrSetSge}, {@link #wrSetSgeList},
 * {@link #wrSetInlineData}, {@link #wrSetUdAddr}), and at the end {@link #wrComplete} (post the batch)
 * or {@link #wrAbort} (drop it).
 *
 * <p>As in rdma-core's providers, a builder call that cannot be honoured (the send queue full, too many
 * SGEs, more inline data than the QP takes) does not throw: it records the batch's error, later calls of
 * the batch do nothing, and {@link #wrComplete} returns that errno and posts nothing of the batch
 * (providers/rxe/rxe.c: {@code qp->err}, ENOSPC). Calling an operation the QP was not created for (not in
 * its {@link QpInitAttrEx#sendOps()}), or a builder call outside {@code wrStart}…{@code wrComplete}, is a
 * NULL function pointer or a write into the wrong WQE in C; here it throws {@link VerbsException} (EOPNOTSUPP,
 * EINVAL) at once. One thread builds a batch at a time (the provider holds the send queue's lock from
 * {@code wr_start} to {@code wr_complete}).
 */
public interface QpEx extends Qp {
    /** {@return the operations this QP was created for: its {@code send_ops_flags}} */
    java.util.Set<SendOpsFlag> sendOps();

    /** {@code ibv_wr_start}: begin a batch of send work requests. */
    void wrStart();

    /**
     * {@code qp->wr_id = id}: the wr_id of the next operation call's request.
     *
     * @param id the wr_id its completion carries
     */
    void wrId(long id);

    /**
     * {@code qp->wr_flags = bits}: the {@code IBV_SEND_*} flags of the next operation call's request.
     *
     * @param bits {@link SendFlag} bits
     */
    void wrFlags(int bits);

    /** {@code ibv_wr_send}: a SEND; its data follows with a set call. */
    void wrSend();

    /**
     * {@code ibv_wr_send_imm}: a SEND with immediate data.
     *
     * @param immData the immediate value, as {@link SendWr#immData(int)} takes it
     */
    void wrSendImm(int immData);

    /**
     * {@code ibv_wr_send_inv}: a SEND that invalidates {@code invalidateRkey} at the responder.
     *
     * @param invalidateRkey the rkey to invalidate
     */
    void wrSendInv(int invalidateRkey);

    /**
     * {@code ibv_wr_rdma_write}: an RDMA WRITE to {@code remoteAddr} under {@code rkey}.
     *
     * @param rkey       the peer region's rkey
     * @param remoteAddr the peer's address
     */
    void wrRdmaWrite(int rkey, long remoteAddr);

    /**
     * {@code ibv_wr_rdma_write_imm}: an RDMA WRITE with immediate data.
     *
     * @param rkey       the peer region's rkey
     * @param remoteAddr the peer's address
     * @param immData    the immediate value
     */
    void wrRdmaWriteImm(int rkey, long remoteAddr, int immData);

    /**
     * {@code ibv_wr_rdma_read}: an RDMA READ from {@code remoteAddr} under {@code rkey}.
     *
     * @param rkey       the peer region's rkey
     * @param remoteAddr the peer's address
     */
    void wrRdmaRead(int rkey, long remoteAddr);

    /**
     * {@code ibv_wr_atomic_cmp_swp}: 8-byte compare and swap; the original value lands in the SGE set next.
     *
     * @param rkey       the peer region's rkey
     * @param remoteAddr the peer's address (8-byte aligned)
     * @param compare    the value compared
     * @param swap       the value written when equal
     */
    void wrAtomicCmpSwp(int rkey, long remoteAddr, long compare, long swap);

    /**
     * {@code ibv_wr_atomic_fetch_add}: 8-byte fetch and add; the original value lands in the SGE set next.
     *
     * @param rkey       the peer region's rkey
     * @param remoteAddr the peer's address (8-byte aligned)
     * @param add        the addend
     */
    void wrAtomicFetchAdd(int rkey, long remoteAddr, long add);

    /**
     * {@code ibv_wr_local_inv}: invalidate a local key; no packet is sent.
     *
     * @param invalidateRkey the key
     */
    void wrLocalInv(int invalidateRkey);

    /**
     * {@code ibv_wr_bind_mw}: bind {@code mw} to {@code bindInfo} under the new key {@code rkey} (type 2: usually
     * {@link Mw#incRkey} of its key; type 1 windows may be bound this way too, rxe_check_bind_mw). Unlike
     * {@link Qp#bindMw} the handle's {@link Mw#rkey()} is left as it was: the window keeps being named by it
     * (rdma-core's rxe wr_bind_mw puts {@code mw->rkey} in the WQE as the window's key). The bind completes
     * {@link WcOpcode#BIND_MW}, or MW_BIND_ERR when the device refuses it. The region must be given: the
     * provider reads {@code bind_info->mr->lkey} (a NULL there crashes in C; here EINVAL at the call).
     *
     * @param mw       the window
     * @param rkey     the key the window has once bound
     * @param bindInfo the region, range and rights
     */
    void wrBindMw(Mw mw, int rkey, MwBindInfo bindInfo);

    /**
     * {@code ibv_wr_atomic_write}: IBTA 1.5 ATOMIC WRITE, the 8 bytes of {@code atomicWr} written at
     * {@code remoteAddr} as one unit (copied now, as the provider copies them into the WQE). Needs no set
     * call after it. The responder needs REMOTE_WRITE on the region, an 8-byte aligned address.
     *
     * @param rkey       the peer region's rkey
     * @param remoteAddr the peer's address
     * @param atomicWr   exactly 8 bytes (IllegalArgumentException otherwise)
     */
    void wrAtomicWrite(int rkey, long remoteAddr, MemorySegment atomicWr);

    /**
     * {@code ibv_wr_flush} (rdma-core 45): IBTA 1.5 FLUSH, which the responder executes after every earlier
     * request of the QP is placed (writes included) and answers once {@code type}'s placement is reached. Needs
     * no set call after it. The peer's region needs {@link FlushType#access()} (else REM_ACCESS_ERR); at level
     * {@link FlushLevel#RANGE} the range must lie inside it (REM_ACCESS_ERR), at {@link FlushLevel#MR} the
     * address and length are ignored. A library or provider without it refuses {@link SendOpsFlag#FLUSH} at
     * {@link Pd#createQpEx} (EOPNOTSUPP: rdma-core 44's rxe provider).
     *
     * @param rkey       the peer region's rkey
     * @param remoteAddr the start of the range
     * @param length     the range's length (the RETH carries its low 32 bits, as rxe's {@code dma.length})
     * @param type       the placement type
     * @param level      the selectivity level
     */
    void wrFlush(int rkey, long remoteAddr, long length, FlushType type, FlushLevel level);

    /**
     * {@code ibv_wr_set_sge}: the one SGE of the request just built (length 0: no data).
     *
     * @param lkey    the local key
     * @param address the address
     * @param length  the length
     */
    void wrSetSge(int lkey, long address, int length);

    /**
     * {@code ibv_wr_set_sge}: {@code length} bytes at {@code offset} of {@code mr}.
     *
     * @param mr     the region
     * @param offset where in it
     * @param length how many bytes
     */
    default void wrSetSge(Mr mr, long offset, int length) {
        wrSetSge(mr.lkey(), mr.address() + offset, length);
    }

    /**
     * {@code ibv_wr_set_sge_list}: the SGEs of the request just built (more than the QP's max_send_sge: ENOSPC
     * at complete).
     *
     * @param sgList the SGEs, copied now
     */
    void wrSetSgeList(ScatterGatherList sgList);

    /**
     * {@code ibv_wr_set_inline_data}: the request's data, copied now (more than max_inline_data: ENOSPC at
     * complete). Set {@link SendFlag#INLINE} in {@link #wrFlags}: rxe copies the data only under it.
     *
     * @param data the bytes
     */
    void wrSetInlineData(MemorySegment data);

    /**
     * {@code ibv_wr_set_inline_data_list}: the request's data from several buffers, copied now in order.
     *
     * @param buffers the buffers
     */
    void wrSetInlineDataList(List<MemorySegment> buffers);

    /**
     * {@code ibv_wr_set_ud_addr}: the UD destination of the request just built.
     *
     * @param ah        the address handle
     * @param remoteQpn the destination QP
     * @param remoteQkey the Q_Key
     */
    void wrSetUdAddr(Ah ah, int remoteQpn, int remoteQkey);

    /**
     * {@code ibv_wr_complete}: post the batch, or nothing of it.
     *
     * @return 0, or the errno of the batch (ENOSPC: the queue filled, too many SGEs, too much inline data;
     *         EINVAL: the QP cannot post sends in its state) and then nothing was posted
     */
    int wrComplete();

    /** {@code ibv_wr_abort}: drop the batch; nothing of it is posted. */
    void wrAbort();
}
