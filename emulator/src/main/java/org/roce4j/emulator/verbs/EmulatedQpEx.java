package org.roce4j.emulator.verbs;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;
import java.util.Objects;
import java.util.Set;

import org.roce4j.emulator.Quirk;
import org.roce4j.emulator.node.NetworkPath;
import org.roce4j.verbs.Ah;
import org.roce4j.verbs.Errno;
import org.roce4j.verbs.FlushLevel;
import org.roce4j.verbs.FlushType;
import org.roce4j.verbs.Mw;
import org.roce4j.verbs.MwBindInfo;
import org.roce4j.verbs.QpEx;
import org.roce4j.verbs.QpType;
import org.roce4j.verbs.ScatterGatherList;
import org.roce4j.verbs.SendOpsFlag;
import org.roce4j.verbs.SendWr;
import org.roce4j.verbs.VerbsException;
import org.roce4j.verbs.spi.ForwardingQp;
import org.roce4j.verbs.WrOpcode;

/**
 * An extended QP ({@code ibv_create_qp_ex}): an {@link EmulatedQp} and its {@code ibv_wr_*} builder. The
 * builder fills reusable {@link SendWr}s of its own, one per send-queue slot, and copies inline data and
 * ATOMIC WRITE's 8 bytes into its own array when they are set, as rxe's provider writes straight into the
 * WQE (providers/rxe/rxe.c). {@link #wrComplete} hands the batch to the RNIC in one locked call that posts
 * all of it or none: nothing is allocated once the QP has been used.
 */
final class EmulatedQpEx extends ForwardingQp implements QpEx {
    private final EmulatedQp qp;
    private final Set<SendOpsFlag> sendOps;
    /** The batch: requests, and each one's copied data ({@code inlineLength[i] < 0}: its data is its SGEs). */
    private final SendWr[] batch;
    private final byte[] inline;
    private final int[] inlineLength;
    /** A request's length when the provider sets one its SGEs do not add up to, else -1 (see wrSetSgeList). */
    private final long[] lengthAsSet;
    /** Each request's FETH word (a FLUSH's level and placement type; 0 for anything else). */
    private final int[] feth;
    private final int inlineSlot;
    private int count;
    /** The batch's first error (providers/rxe/rxe.c {@code qp->err}): later calls do nothing, complete returns it. */
    private int error;
    private boolean building;
    private long wrId;
    private int wrFlags;

    EmulatedQpEx(EmulatedQp qp, Set<SendOpsFlag> sendOps) {
        super(qp);
        this.qp = qp;
        this.sendOps = sendOps;
        int slots = qp.sq.capacity;
        this.batch = new SendWr[slots];
        for (int i = 0; i < slots; i++) {
            batch[i] = new SendWr();
        }
        this.inlineSlot = Math.max(qp.sq.maxInline, 8);
        this.inline = new byte[slots * inlineSlot];
        this.inlineLength = new int[slots];
        this.lengthAsSet = new long[slots];
        this.feth = new int[slots];
    }

    /** The QP under the builder (for code that needs the emulator's own object, such as the CM). */
    EmulatedQp qp() {
        return qp;
    }

    // ---- the builder -----------------------------------------------------------------------

    @Override
    public Set<SendOpsFlag> sendOps() {
        return sendOps;
    }

    @Override
    public void wrStart() {
        building = true;
        count = 0;
        error = 0;
    }

    @Override
    public void wrId(long id) {
        wrId = id;
    }

    @Override
    public void wrFlags(int bits) {
        wrFlags = bits;
    }

    @Override
    public void wrSend() {
        begin(WrOpcode.SEND);
    }

    @Override
    public void wrSendImm(int immData) {
        SendWr wr = begin(WrOpcode.SEND_WITH_IMM);
        if (wr != null) {
            wr.immData(immData);
        }
    }

    @Override
    public void wrSendInv(int invalidateRkey) {
        SendWr wr = begin(WrOpcode.SEND_WITH_INV);
        if (wr != null) {
            wr.invalidateRkey(invalidateRkey);
        }
    }

    @Override
    public void wrRdmaWrite(int rkey, long remoteAddr) {
        SendWr wr = begin(WrOpcode.RDMA_WRITE);
        if (wr != null) {
            wr.remote(remoteAddr, rkey);
        }
    }

    @Override
    public void wrRdmaWriteImm(int rkey, long remoteAddr, int immData) {
        SendWr wr = begin(WrOpcode.RDMA_WRITE_WITH_IMM);
        if (wr != null) {
            wr.remote(remoteAddr, rkey).immData(immData);
        }
    }

    @Override
    public void wrRdmaRead(int rkey, long remoteAddr) {
        SendWr wr = begin(WrOpcode.RDMA_READ);
        if (wr != null) {
            wr.remote(remoteAddr, rkey);
        }
    }

    @Override
    public void wrAtomicCmpSwp(int rkey, long remoteAddr, long compare, long swap) {
        SendWr wr = begin(WrOpcode.ATOMIC_CMP_AND_SWP);
        if (wr != null) {
            wr.remote(remoteAddr, rkey).compareAdd(compare).swap(swap);
        }
    }

    @Override
    public void wrAtomicFetchAdd(int rkey, long remoteAddr, long add) {
        SendWr wr = begin(WrOpcode.ATOMIC_FETCH_AND_ADD);
        if (wr != null) {
            wr.remote(remoteAddr, rkey).compareAdd(add);
        }
    }

    @Override
    public void wrLocalInv(int invalidateRkey) {
        SendWr wr = begin(WrOpcode.LOCAL_INV);
        if (wr != null) {
            wr.invalidateRkey(invalidateRkey);
        }
    }

    @Override
    public void wrBindMw(Mw mw, int rkey, MwBindInfo bindInfo) {
        // rxe.c wr_bind_mw reads bind_info->mr->lkey: a missing region or a foreign handle crashes in C.
        if (!(mw instanceof EmulatedMw) || bindInfo == null || !(bindInfo.mr() instanceof EmulatedMr)) {
            throw new VerbsException(Errno.EINVAL, "ibv_wr_bind_mw: a window and a region of this device are needed");
        }
        SendWr wr = begin(WrOpcode.BIND_MW);
        if (wr != null) {
            // rxe.c wr_bind_mw: mw_rkey = ibmw->rkey names the window, rkey is its key once bound; the handle keeps
            // its rkey. What the kernel checks (rxe_check_bind_mw) completes as MW_BIND_ERR.
            wr.bindMw(mw, rkey, bindInfo);
        }
    }

    @Override
    public void wrAtomicWrite(int rkey, long remoteAddr, MemorySegment atomicWr) {
        if (atomicWr.byteSize() != 8) {
            throw new IllegalArgumentException("ibv_wr_atomic_write writes 8 bytes, not " + atomicWr.byteSize());
        }
        SendWr wr = begin(WrOpcode.ATOMIC_WRITE);
        if (wr != null) {
            wr.remote(remoteAddr, rkey);
            // rxe.c wr_atomic_write: memcpy(wqe->dma.atomic_wr, atomic_wr, 8); dma.length = 8
            MemorySegment.copy(atomicWr, ValueLayout.JAVA_BYTE, 0, inline, (count - 1) * inlineSlot, 8);
            inlineLength[count - 1] = 8;
        }
    }

    @Override
    public void wrFlush(int rkey, long remoteAddr, long length, FlushType type, FlushLevel level) {
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(level, "level");
        SendWr wr = begin(WrOpcode.FLUSH);
        if (wr != null) {
            // rxe.c wr_flush (rdma-core 45): rkey, remote_addr, type and level into the WQE, dma.length = len (a
            // u32: the RETH carries the low 32 bits), no SGE.
            wr.remote(remoteAddr, rkey);
            lengthAsSet[count - 1] = length & 0xFFFF_FFFFL;
            feth[count - 1] = level.value() << 4 | type.bit();
        }
    }

    @Override
    public void wrSetSge(int lkey, long address, int length) {
        SendWr wr = current();
        if (wr != null) {
            inlineLength[count - 1] = -1;
            wr.sgList().clear();
            if (length != 0) { // rxe.c wr_set_sge: a zero length leaves the request without data
                wr.sge(address, length, lkey);
            }
        }
    }

    @Override
    public void wrSetSgeList(ScatterGatherList sgList) {
        SendWr wr = current();
        if (wr == null) {
            return;
        }
        if (sgList.count() > qp.initAttr().cap().maxSendSge()) {
            error = Errno.ENOSPC.number(); // rxe.c wr_set_sge_list: num_sge > max_sge
            return;
        }
        inlineLength[count - 1] = -1;
        wr.sgList().clear();
        for (int i = 0; i < sgList.count(); i++) {
            wr.sge(sgList.address(i), sgList.length(i), sgList.lkey(i));
        }
        if (qp.rnic.model.has(Quirk.WR_SET_SGE_LIST_LENGTH_IS_COUNT_TIMES_FIRST) && sgList.count() > 0) {
            // rdma-core 44 rxe.c wr_set_sge_list: while (num_sge--) tot_length += sg_list->length;
            lengthAsSet[count - 1] = (long) sgList.count() * Integer.toUnsignedLong(sgList.length(0));
        }
    }

    @Override
    public void wrSetInlineData(MemorySegment data) {
        if (current() == null) {
            return;
        }
        if (data.byteSize() > qp.sq.maxInline) {
            error = Errno.ENOSPC.number(); // rxe.c wr_set_inline_data: length > max_inline
            return;
        }
        int at = (count - 1) * inlineSlot;
        MemorySegment.copy(data, ValueLayout.JAVA_BYTE, 0, inline, at, (int) data.byteSize());
        inlineLength[count - 1] = (int) data.byteSize();
    }

    @Override
    public void wrSetInlineDataList(List<MemorySegment> buffers) {
        if (current() == null) {
            return;
        }
        int at = (count - 1) * inlineSlot;
        int total = 0;
        for (int i = 0; i < buffers.size(); i++) {
            MemorySegment buffer = buffers.get(i);
            if (total + buffer.byteSize() > qp.sq.maxInline) {
                error = Errno.ENOSPC.number(); // rxe.c wr_set_inline_data_list
                return;
            }
            MemorySegment.copy(buffer, ValueLayout.JAVA_BYTE, 0, inline, at + total, (int) buffer.byteSize());
            total += (int) buffer.byteSize();
        }
        inlineLength[count - 1] = total;
    }

    @Override
    public void wrSetUdAddr(Ah ah, int remoteQpn, int remoteQkey) {
        SendWr wr = current();
        if (wr != null) {
            wr.ud(ah, remoteQpn, remoteQkey);
        }
    }

    @Override
    public int wrComplete() {
        requireBuilding("ibv_wr_complete");
        building = false;
        if (error != 0 || count == 0) {
            count = 0;
            return error;
        }
        int errno = qp.rnic.callAsInt(EmulatedQpEx::postBatch, qp, this);
        count = 0;
        if (errno == 0) {
            qp.rnic.sendPosted();
        }
        return errno;
    }

    @Override
    public void wrAbort() {
        requireBuilding("ibv_wr_abort");
        building = false;
        count = 0;
    }

    /** On the RNIC: every request of the batch, or none (EINVAL, ENOSPC: the send queue has no room for them all). */
    private static int postBatch(EmulatedQp qp, EmulatedQpEx builder) {
        synchronized (qp.sq) { // as ibv_post_send: the send queue's monitor orders it among other posters
            int errno = queueBatch(qp, builder);
            if (errno != 0) {
                return errno;
            }
        }
        qp.sendQueueGrew();
        return 0;
    }

    private static int queueBatch(EmulatedQp qp, EmulatedQpEx builder) {
        for (int i = 0; i < builder.count; i++) {
            if (WorkRequestChecks.builtProblem(qp, builder.batch[i]) != null) {
                return Errno.EINVAL.number();
            }
        }
        if (qp.sq.room() < builder.count) {
            return Errno.ENOSPC.number(); // providers/rxe/rxe_queue.h check_qp_queue_full
        }
        for (int i = 0; i < builder.count; i++) {
            SendWr wr = builder.batch[i];
            NetworkPath udPath = qp.type == QpType.UD ? ((EmulatedAh) wr.ah()).path : null;
            qp.sq.postBuilt(wr, udPath, builder.inline, i * builder.inlineSlot, builder.inlineLength[i],
                    builder.lengthAsSet[i], builder.feth[i]);
        }
        return 0;
    }

    /** An operation call: the next request of the batch, or null when the batch has failed already. */
    private SendWr begin(WrOpcode opcode) {
        requireBuilding("ibv_wr_*");
        if (!sendOps.contains(SendOpsFlag.of(opcode))) {
            // In C the function pointer is NULL (providers/rxe/rxe.c set_qp_send_ops): a crash, here an error.
            throw new VerbsException(Errno.EOPNOTSUPP, "ibv_wr_" + opcode.name().toLowerCase()
                    + ": the QP was not created with IBV_QP_EX_WITH_" + SendOpsFlag.of(opcode).name());
        }
        if (error != 0) {
            return null;
        }
        if (count == batch.length) {
            error = Errno.ENOSPC.number(); // rxe_queue.h check_qp_queue_full: the batch fills the send queue
            return null;
        }
        SendWr wr = batch[count].reset().wrId(wrId).sendFlags(wrFlags).opcode(opcode);
        inlineLength[count] = -1;
        lengthAsSet[count] = -1;
        feth[count] = 0;
        count++;
        return wr;
    }

    /** A set call: the request the last operation call built, or null when the batch has failed already. */
    private SendWr current() {
        requireBuilding("ibv_wr_set_*");
        if (count == 0 && error == 0) {
            throw new VerbsException(Errno.EINVAL, "ibv_wr_set_*: no operation call before it in this batch");
        }
        return error != 0 ? null : batch[count - 1];
    }

    private void requireBuilding(String verb) {
        if (!building) {
            throw new VerbsException(Errno.EINVAL, verb + ": outside ibv_wr_start ... ibv_wr_complete/abort");
        }
    }

    // ---- the QP ----------------------------------------------------------------------------

    @Override
    public boolean equals(Object other) {
        return other instanceof EmulatedQpEx ex && ex.qp == qp;
    }

    @Override
    public int hashCode() {
        return Objects.hashCode(qp);
    }
}
