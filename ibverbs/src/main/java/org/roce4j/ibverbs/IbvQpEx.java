package org.roce4j.ibverbs;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.nio.ByteOrder;
import java.util.List;
import java.util.Set;

import org.roce4j.verbs.AccessFlag;
import org.roce4j.verbs.Ah;
import org.roce4j.verbs.Errno;
import org.roce4j.verbs.FlushLevel;
import org.roce4j.verbs.FlushType;
import org.roce4j.verbs.Mw;
import org.roce4j.verbs.MwBindInfo;
import org.roce4j.verbs.QpEx;
import org.roce4j.verbs.QpInitAttr;
import org.roce4j.verbs.ScatterGatherList;
import org.roce4j.verbs.SendOpsFlag;
import org.roce4j.verbs.VerbsException;
import org.roce4j.verbs.spi.ForwardingQp;
import org.roce4j.verbs.WrOpcode;

/**
 * An extended QP of libibverbs: the {@code struct ibv_qp_ex} of a QP from {@code ibv_create_qp_ex}, whose
 * {@code ibv_wr_*} calls are the provider's function pointers in that struct (verbs.h: {@code ibv_wr_send}
 * and the others are static inline, one call through {@code qp->wr_send}), called here through downcall
 * handles that take the pointer first. What the provider does with each call passes through unchanged
 * (rxe: ENOSPC from {@code ibv_wr_complete}); what would crash the process in C is refused before the call:
 * an operation whose pointer the provider left NULL (not in {@code send_ops_flags}: EOPNOTSUPP), a call
 * outside {@code ibv_wr_start} … {@code ibv_wr_complete}/{@code ibv_wr_abort} or a set call before any
 * operation (the provider would write into another WQE: EINVAL). Data the provider copies at the call (inline
 * data, ATOMIC WRITE's 8 bytes, SGE lists) is staged in native scratch memory of this QP, so the builder
 * allocates nothing once warm.
 */
@SuppressWarnings("restricted")   // this is the module that calls native code (FFM)
final class IbvQpEx extends ForwardingQp implements QpEx {
    private static final Linker LINKER = Linker.nativeLinker();
    private static final Linker.Option CRITICAL = Linker.Option.critical(false);
    private static final MethodHandle V_A = handle(FunctionDescriptor.ofVoid(ADDRESS));
    private static final MethodHandle I_A = handle(FunctionDescriptor.of(JAVA_INT, ADDRESS));
    private static final MethodHandle V_AI = handle(FunctionDescriptor.ofVoid(ADDRESS, JAVA_INT));
    private static final MethodHandle V_AIJ = handle(FunctionDescriptor.ofVoid(ADDRESS, JAVA_INT, JAVA_LONG));
    private static final MethodHandle V_AIJI = handle(FunctionDescriptor.ofVoid(ADDRESS, JAVA_INT, JAVA_LONG, JAVA_INT));
    private static final MethodHandle V_AIJJ = handle(FunctionDescriptor.ofVoid(ADDRESS, JAVA_INT, JAVA_LONG, JAVA_LONG));
    private static final MethodHandle V_AIJJJ = handle(
            FunctionDescriptor.ofVoid(ADDRESS, JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_LONG));
    private static final MethodHandle V_AIJA = handle(FunctionDescriptor.ofVoid(ADDRESS, JAVA_INT, JAVA_LONG, ADDRESS));
    private static final MethodHandle V_AJA = handle(FunctionDescriptor.ofVoid(ADDRESS, JAVA_LONG, ADDRESS));
    private static final MethodHandle V_AAJ = handle(FunctionDescriptor.ofVoid(ADDRESS, ADDRESS, JAVA_LONG));
    private static final MethodHandle V_AAIA = handle(FunctionDescriptor.ofVoid(ADDRESS, ADDRESS, JAVA_INT, ADDRESS));
    private static final MethodHandle V_AAII = handle(FunctionDescriptor.ofVoid(ADDRESS, ADDRESS, JAVA_INT, JAVA_INT));
    private static final MethodHandle V_AIJJBB = handle(
            FunctionDescriptor.ofVoid(ADDRESS, JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_BYTE, JAVA_BYTE));
    private static final MemoryLayout L = ExtendedLayouts.IBV_QP_EX;
    private static final long WR_ID = Layouts.offset(L, "wr_id");
    private static final long WR_FLAGS = Layouts.offset(L, "wr_flags");
    private static final int SCRATCH_BUFFERS = 16;

    private final IbvQp qp;
    private final Set<SendOpsFlag> sendOps;
    /** The {@code struct ibv_qp_ex *}: the QP itself (verbs.h: {@code struct verbs_qp} holds it in a union with the qp). */
    private final MemorySegment qpEx;
    private final MemorySegment[] op = new MemorySegment[ExtendedLayouts.QP_EX_OPS.size()];
    private final Arena arena = Arena.ofShared();
    private final MemorySegment atomicWr;
    private final MemorySegment bindInfoScratch;
    private final MemorySegment inline;
    private final MemorySegment sges;
    private final MemorySegment dataBufs;
    private boolean building;
    private boolean hasRequest;

    IbvQpEx(IbvQp qp, MemorySegment qpEx, Set<SendOpsFlag> sendOps) {
        super(qp);
        this.qp = qp;
        this.sendOps = sendOps;
        this.qpEx = qpEx.reinterpret(L.byteSize());
        for (int i = 0; i < op.length; i++) {
            op[i] = this.qpEx.get(ADDRESS, Layouts.offset(L, ExtendedLayouts.QP_EX_OPS.get(i)));
        }
        QpInitAttr init = qp.initAttr();
        atomicWr = arena.allocate(8, 8);
        bindInfoScratch = arena.allocate(Layouts.IBV_MW_BIND_INFO);
        inline = arena.allocate(Math.max(1, init.cap().maxInlineData()), 8);
        sges = arena.allocate(Layouts.IBV_SGE, Math.max(1, init.cap().maxSendSge()));
        dataBufs = arena.allocate(ExtendedLayouts.IBV_DATA_BUF, SCRATCH_BUFFERS);
    }

    private static MethodHandle handle(FunctionDescriptor descriptor) {
        return LINKER.downcallHandle(descriptor, CRITICAL);
    }

    /** The function pointer of {@code name}; NULL when the provider has none (checked before calling it). */
    private MemorySegment fn(String name) {
        return op[ExtendedLayouts.QP_EX_OPS.indexOf(name)];
    }

    /** __be32: the immediate as the wire carries it, which is how SendWr and the completions give it. */
    private static int bigEndian(int value) {
        return ByteOrder.nativeOrder() == ByteOrder.BIG_ENDIAN ? value : Integer.reverseBytes(value);
    }

    // ---- the builder -----------------------------------------------------------------------

    @Override
    public Set<SendOpsFlag> sendOps() {
        return sendOps;
    }

    @Override
    public void wrStart() {
        qp.checkOpen("ibv_wr_start");
        if (building) {
            // rxe's wr_start takes the send queue's spinlock until wr_complete/wr_abort: a second start deadlocks.
            throw new VerbsException(Errno.EINVAL, "ibv_wr_start: a batch is being built; complete or abort it first");
        }
        try {
            V_A.invokeExact(fn("wr_start"), qpEx);
        } catch (Throwable t) {
            throw failed(t);
        }
        building = true;
        hasRequest = false;
    }

    @Override
    public void wrId(long id) {
        qpEx.set(JAVA_LONG, WR_ID, id);
    }

    @Override
    public void wrFlags(int bits) {
        qpEx.set(JAVA_INT, WR_FLAGS, bits);
    }

    @Override
    public void wrSend() {
        MemorySegment f = operation(WrOpcode.SEND, "wr_send");
        try {
            V_A.invokeExact(f, qpEx);
        } catch (Throwable t) {
            throw failed(t);
        }
    }

    @Override
    public void wrSendImm(int immData) {
        MemorySegment f = operation(WrOpcode.SEND_WITH_IMM, "wr_send_imm");
        try {
            V_AI.invokeExact(f, qpEx, (int) bigEndian(immData));
        } catch (Throwable t) {
            throw failed(t);
        }
    }

    @Override
    public void wrSendInv(int invalidateRkey) {
        MemorySegment f = operation(WrOpcode.SEND_WITH_INV, "wr_send_inv");
        try {
            V_AI.invokeExact(f, qpEx, (int) invalidateRkey);
        } catch (Throwable t) {
            throw failed(t);
        }
    }

    @Override
    public void wrRdmaWrite(int rkey, long remoteAddr) {
        MemorySegment f = operation(WrOpcode.RDMA_WRITE, "wr_rdma_write");
        try {
            V_AIJ.invokeExact(f, qpEx, (int) rkey, (long) remoteAddr);
        } catch (Throwable t) {
            throw failed(t);
        }
    }

    @Override
    public void wrRdmaWriteImm(int rkey, long remoteAddr, int immData) {
        MemorySegment f = operation(WrOpcode.RDMA_WRITE_WITH_IMM, "wr_rdma_write_imm");
        try {
            V_AIJI.invokeExact(f, qpEx, (int) rkey, (long) remoteAddr, (int) bigEndian(immData));
        } catch (Throwable t) {
            throw failed(t);
        }
    }

    @Override
    public void wrRdmaRead(int rkey, long remoteAddr) {
        MemorySegment f = operation(WrOpcode.RDMA_READ, "wr_rdma_read");
        try {
            V_AIJ.invokeExact(f, qpEx, (int) rkey, (long) remoteAddr);
        } catch (Throwable t) {
            throw failed(t);
        }
    }

    @Override
    public void wrAtomicCmpSwp(int rkey, long remoteAddr, long compare, long swap) {
        MemorySegment f = operation(WrOpcode.ATOMIC_CMP_AND_SWP, "wr_atomic_cmp_swp");
        try {
            V_AIJJJ.invokeExact(f, qpEx, (int) rkey, (long) remoteAddr, (long) compare, (long) swap);
        } catch (Throwable t) {
            throw failed(t);
        }
    }

    @Override
    public void wrAtomicFetchAdd(int rkey, long remoteAddr, long add) {
        MemorySegment f = operation(WrOpcode.ATOMIC_FETCH_AND_ADD, "wr_atomic_fetch_add");
        try {
            V_AIJJ.invokeExact(f, qpEx, (int) rkey, (long) remoteAddr, (long) add);
        } catch (Throwable t) {
            throw failed(t);
        }
    }

    @Override
    public void wrLocalInv(int invalidateRkey) {
        MemorySegment f = operation(WrOpcode.LOCAL_INV, "wr_local_inv");
        try {
            V_AI.invokeExact(f, qpEx, (int) invalidateRkey);
        } catch (Throwable t) {
            throw failed(t);
        }
    }

    /**
     * {@code ibv_wr_bind_mw}: the provider copies {@code bind_info} into the WQE at the call (rxe.c wr_bind_mw), so
     * it is staged in this QP's scratch memory. It reads {@code bind_info->mr->lkey}: without an open region of this
     * provider the call is refused before it (EINVAL), as {@link IbvQp#bindMw} does.
     */
    @Override
    public void wrBindMw(Mw mw, int rkey, MwBindInfo bindInfo) {
        if (!(mw instanceof IbvMw window) || window.isClosed() || bindInfo == null
                || !(bindInfo.mr() instanceof IbvMr mr) || mr.isClosed()) {
            throw new VerbsException(Errno.EINVAL, "ibv_wr_bind_mw: an open window and region of this provider are needed");
        }
        MemorySegment function = operation(WrOpcode.BIND_MW, "wr_bind_mw");
        var l = Layouts.IBV_MW_BIND_INFO;
        bindInfoScratch.set(ADDRESS, Layouts.offset(l, "mr"), mr.mr);
        bindInfoScratch.set(JAVA_LONG, Layouts.offset(l, "addr"), bindInfo.addr());
        bindInfoScratch.set(JAVA_LONG, Layouts.offset(l, "length"), bindInfo.length());
        bindInfoScratch.set(JAVA_INT, Layouts.offset(l, "mw_access_flags"), AccessFlag.bits(bindInfo.mwAccessFlags()));
        try {
            V_AAIA.invokeExact(function, qpEx, window.mw, (int) rkey, bindInfoScratch);
        } catch (Throwable t) {
            throw failed(t);
        }
    }

    @Override
    public void wrAtomicWrite(int rkey, long remoteAddr, MemorySegment value) {
        if (value.byteSize() != 8) {
            throw new IllegalArgumentException("ibv_wr_atomic_write writes 8 bytes, not " + value.byteSize());
        }
        MemorySegment function = operation(WrOpcode.ATOMIC_WRITE, "wr_atomic_write");
        MemorySegment.copy(value, 0, atomicWr, 0, 8); // the provider copies the 8 bytes into the WQE at the call
        try {
            V_AIJA.invokeExact(function, qpEx, (int) rkey, (long) remoteAddr, (MemorySegment) atomicWr);
        } catch (Throwable t) {
            throw failed(t);
        }
    }

    /**
     * {@code ibv_wr_flush} through {@code qp->wr_flush}, the pointer rdma-core 45 appended to {@code struct
     * ibv_qp_ex} right after {@code wr_atomic_write} ({@link ExtendedLayouts#WR_FLUSH_OFFSET}). rdma-core 44's
     * struct ends before it, and no exported symbol tells 45 from 44 (45 added none), so the pointer is read only
     * for a QP whose provider accepted IBV_QP_EX_WITH_FLUSH at {@code ibv_create_qp_ex}: the provider allocates the
     * struct inside its own QP, and one that knows the flag was built with the field (44's rxe refuses the flag
     * with EOPNOTSUPP). Any other QP gets EOPNOTSUPP, what the NULL pointer would have meant.
     */
    @Override
    public void wrFlush(int rkey, long remoteAddr, long length, FlushType type, FlushLevel level) {
        requireBuilding("ibv_wr_flush");
        if (!sendOps.contains(SendOpsFlag.FLUSH)) {
            throw new VerbsException(Errno.EOPNOTSUPP, "ibv_wr_flush: the QP was not created with IBV_QP_EX_WITH_FLUSH "
                    + "(rdma-core 44's providers have no wr_flush)");
        }
        MemorySegment function = qpEx.reinterpret(ExtendedLayouts.WR_FLUSH_OFFSET + ADDRESS.byteSize())
                .get(ADDRESS, ExtendedLayouts.WR_FLUSH_OFFSET);
        if (function.equals(MemorySegment.NULL)) {
            throw new VerbsException(Errno.EOPNOTSUPP, "ibv_wr_flush: the provider's wr_flush is NULL");
        }
        hasRequest = true;
        try {
            V_AIJJBB.invokeExact(function, qpEx, (int) rkey, (long) remoteAddr, (long) length, (byte) type.bit(),
                    (byte) level.value());
        } catch (Throwable t) {
            throw failed(t);
        }
    }

    @Override
    public void wrSetSge(int lkey, long address, int length) {
        MemorySegment f = setter("wr_set_sge");
        try {
            V_AIJI.invokeExact(f, qpEx, (int) lkey, (long) address, (int) length);
        } catch (Throwable t) {
            throw failed(t);
        }
    }

    @Override
    public void wrSetSgeList(ScatterGatherList sgList) {
        MemorySegment function = setter("wr_set_sge_list");
        int n = sgList.count();
        if (n <= sges.byteSize() / Layouts.IBV_SGE.byteSize()) {
            setList(function, n, staged(sges, sgList));
            return;
        }
        try (Arena once = Arena.ofConfined()) { // more than max_send_sge: rxe refuses it (ENOSPC) without reading
            setList(function, n, staged(once.allocate(Layouts.IBV_SGE, n), sgList));
        }
    }

    @Override
    public void wrSetInlineData(MemorySegment data) {
        MemorySegment function = setter("wr_set_inline_data");
        if (data.isNative()) {
            setInline(function, data); // the provider copies it at the call
        } else if (data.byteSize() <= inline.byteSize()) {
            MemorySegment.copy(data, 0, inline, 0, data.byteSize());
            setInline(function, inline.asSlice(0, data.byteSize()));
        } else {
            try (Arena once = Arena.ofConfined()) {
                setInline(function, once.allocate(data.byteSize()).copyFrom(data));
            }
        }
    }

    @Override
    public void wrSetInlineDataList(List<MemorySegment> buffers) {
        MemorySegment function = setter("wr_set_inline_data_list");
        try (Arena once = Arena.ofConfined()) {
            MemorySegment list = buffers.size() <= SCRATCH_BUFFERS ? dataBufs
                    : once.allocate(ExtendedLayouts.IBV_DATA_BUF, buffers.size());
            long size = ExtendedLayouts.IBV_DATA_BUF.byteSize();
            for (int i = 0; i < buffers.size(); i++) {
                MemorySegment buffer = buffers.get(i);
                MemorySegment nativeBuffer = buffer.isNative() ? buffer : once.allocate(buffer.byteSize()).copyFrom(buffer);
                list.set(ADDRESS, i * size, nativeBuffer);
                list.set(JAVA_LONG, i * size + 8, buffer.byteSize());
            }
            setList(function, buffers.size(), list);
        }
    }

    /** {@code wr_set_sge_list} and {@code wr_set_inline_data_list}: (qp, size_t count, array). */
    private void setList(MemorySegment function, long count, MemorySegment array) {
        try {
            V_AJA.invokeExact(function, qpEx, count, array);
        } catch (Throwable t) {
            throw failed(t);
        }
    }

    /** {@code wr_set_inline_data}: (qp, void *addr, size_t length). */
    private void setInline(MemorySegment function, MemorySegment data) {
        try {
            V_AAJ.invokeExact(function, qpEx, data, data.byteSize());
        } catch (Throwable t) {
            throw failed(t);
        }
    }

    @Override
    public void wrSetUdAddr(Ah ah, int remoteQpn, int remoteQkey) {
        MemorySegment function = setter("wr_set_ud_addr");
        if (!(ah instanceof IbvAh ours)) {
            throw new VerbsException(Errno.EINVAL, "ibv_wr_set_ud_addr: an address handle of this device is required");
        }
        ours.checkOpen("ibv_wr_set_ud_addr");
        try {
            V_AAII.invokeExact(function, qpEx, (MemorySegment) ours.ah, (int) remoteQpn, (int) remoteQkey);
        } catch (Throwable t) {
            throw failed(t);
        }
    }

    @Override
    public int wrComplete() {
        requireBuilding("ibv_wr_complete");
        building = false;
        try {
            return (int) I_A.invokeExact(fn("wr_complete"), qpEx);
        } catch (Throwable t) {
            throw new IllegalStateException("ibv_wr_complete failed", t);
        }
    }

    @Override
    public void wrAbort() {
        requireBuilding("ibv_wr_abort");
        building = false;
        try {
            V_A.invokeExact(fn("wr_abort"), qpEx);
        } catch (Throwable t) {
            throw failed(t);
        }
    }

    private MemorySegment operation(WrOpcode opcode, String name) {
        requireBuilding("ibv_" + name);
        MemorySegment function = fn(name);
        if (!sendOps.contains(SendOpsFlag.of(opcode)) || function.equals(MemorySegment.NULL)) {
            throw new VerbsException(Errno.EOPNOTSUPP, "ibv_" + name + ": the QP was not created with IBV_QP_EX_WITH_"
                    + SendOpsFlag.of(opcode).name() + " (its function pointer is NULL)");
        }
        hasRequest = true;
        return function;
    }

    private MemorySegment setter(String name) {
        requireBuilding("ibv_" + name);
        if (!hasRequest) {
            throw new VerbsException(Errno.EINVAL, "ibv_" + name + ": no operation call before it in this batch");
        }
        return fn(name);
    }

    private void requireBuilding(String verb) {
        if (!building) {
            throw new VerbsException(Errno.EINVAL, verb + ": outside ibv_wr_start ... ibv_wr_complete/abort");
        }
    }

    private static IllegalStateException failed(Throwable t) {
        return new IllegalStateException("ibv_wr_* call failed", t);
    }

    /** The SGEs as an {@code ibv_sge} array in {@code into}, which the provider copies at the call. */
    private static MemorySegment staged(MemorySegment into, ScatterGatherList sgList) {
        RecvWrChain.writeSges(into, 0, sgList);
        return into;
    }

    // ---- the QP ----------------------------------------------------------------------------

    IbvQp qp() {
        return qp;
    }

    @Override
    public void close() {
        if (building) {
            wrAbort(); // releases the provider's send-queue lock before the QP goes
        }
        super.close();
        arena.close();
    }
}
