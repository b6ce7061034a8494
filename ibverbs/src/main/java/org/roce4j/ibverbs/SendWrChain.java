package org.roce4j.ibverbs;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.List;

import org.roce4j.verbs.AccessFlag;
import org.roce4j.verbs.BadWorkRequestException;
import org.roce4j.verbs.MwBindInfo;
import org.roce4j.verbs.Errno;
import org.roce4j.verbs.QpType;
import org.roce4j.verbs.ScatterGatherList;
import org.roce4j.verbs.SendFlag;
import org.roce4j.verbs.SendWr;
import org.roce4j.verbs.WrOpcode;
import org.roce4j.verbs.spi.RegisteredMemory;

/**
 * Native {@code struct ibv_send_wr} and {@code struct ibv_sge} arrays owned by one send queue, filled
 * from {@link SendWr}s and handed to the context's {@code post_send}. They grow (doubling) and are
 * then reused: a warm post allocates nothing. Not thread-safe; the QP synchronizes.
 */
final class SendWrChain {
    private static final long WR_SIZE = Layouts.IBV_SEND_WR.byteSize();
    private static final long SGE_SIZE = Layouts.IBV_SGE.byteSize();
    private static final long WR_ID = Layouts.offset(Layouts.IBV_SEND_WR, "wr_id");
    private static final long NEXT = Layouts.offset(Layouts.IBV_SEND_WR, "next");
    private static final long SG_LIST = Layouts.offset(Layouts.IBV_SEND_WR, "sg_list");
    private static final long NUM_SGE = Layouts.offset(Layouts.IBV_SEND_WR, "num_sge");
    private static final long OPCODE = Layouts.offset(Layouts.IBV_SEND_WR, "opcode");
    private static final long SEND_FLAGS = Layouts.offset(Layouts.IBV_SEND_WR, "send_flags");
    private static final long IMM_DATA = Layouts.offset(Layouts.IBV_SEND_WR, "imm_data");
    private static final long RDMA_REMOTE_ADDR = Layouts.offset(Layouts.IBV_SEND_WR, "wr.rdma.remote_addr");
    private static final long RDMA_RKEY = Layouts.offset(Layouts.IBV_SEND_WR, "wr.rdma.rkey");
    private static final long ATOMIC_REMOTE_ADDR = Layouts.offset(Layouts.IBV_SEND_WR, "wr.atomic.remote_addr");
    private static final long ATOMIC_COMPARE_ADD = Layouts.offset(Layouts.IBV_SEND_WR, "wr.atomic.compare_add");
    private static final long ATOMIC_SWAP = Layouts.offset(Layouts.IBV_SEND_WR, "wr.atomic.swap");
    private static final long ATOMIC_RKEY = Layouts.offset(Layouts.IBV_SEND_WR, "wr.atomic.rkey");
    private static final long UD_AH = Layouts.offset(Layouts.IBV_SEND_WR, "wr.ud.ah");
    private static final long UD_REMOTE_QPN = Layouts.offset(Layouts.IBV_SEND_WR, "wr.ud.remote_qpn");
    private static final long UD_REMOTE_QKEY = Layouts.offset(Layouts.IBV_SEND_WR, "wr.ud.remote_qkey");
    private static final long BIND_MW_MW = Layouts.offset(Layouts.IBV_SEND_WR, "bind_mw.mw");
    private static final long BIND_MW_RKEY = Layouts.offset(Layouts.IBV_SEND_WR, "bind_mw.rkey");
    private static final long BIND_MR = Layouts.offset(Layouts.IBV_SEND_WR, "bind_mw.bind_info.mr");
    private static final long BIND_ADDR = Layouts.offset(Layouts.IBV_SEND_WR, "bind_mw.bind_info.addr");
    private static final long BIND_LENGTH = Layouts.offset(Layouts.IBV_SEND_WR, "bind_mw.bind_info.length");
    private static final long BIND_ACCESS = Layouts.offset(Layouts.IBV_SEND_WR, "bind_mw.bind_info.mw_access_flags");
    /** imm_data is __be32: the Java int is the value, sent in network byte order (as the emulator does). */
    private static final ValueLayout.OfInt BIG_ENDIAN_INT = JAVA_INT.withOrder(ByteOrder.BIG_ENDIAN);

    private final Arena arena;
    private final QpType type;
    private final RegisteredMemory registeredMemory;
    private final MemorySegment badWr;
    private MemorySegment wrs;
    private MemorySegment sges;
    private final SendWr[] single = new SendWr[1];
    private SendWr[] scratch = new SendWr[4];

    SendWrChain(Arena arena, QpType type, RegisteredMemory registeredMemory) {
        this.arena = arena;
        this.type = type;
        this.registeredMemory = registeredMemory;
        this.badWr = arena.allocate(ADDRESS);
        this.wrs = arena.allocate(WR_SIZE * 4, 8);
        this.sges = arena.allocate(SGE_SIZE * 8, 8);
    }

    void post(MemorySegment fn, MemorySegment qp, SendWr wr) {
        single[0] = wr;
        try {
            post(fn, qp, single, 1);
        } finally {
            single[0] = null;
        }
    }

    void post(MemorySegment fn, MemorySegment qp, List<SendWr> list) {
        int count = list.size();
        if (scratch.length < count) {
            scratch = new SendWr[Integer.highestOneBit(count) * 2];
        }
        for (int i = 0; i < count; i++) {
            scratch[i] = list.get(i);
        }
        try {
            post(fn, qp, scratch, count);
        } finally {
            Arrays.fill(scratch, 0, count, null);
        }
    }

    private void post(MemorySegment fn, MemorySegment qp, SendWr[] list, int requested) {
        // Checked here, before the provider sees them (the WRs before a bad one are posted, as bad_wr
        // semantics say): a UD work request without a usable AH (the provider would dereference it), and
        // INLINE data outside memory registered on this context. An opcode the QP type does not allow is
        // not checked: the provider posts it and the device fails it (rxe: LOC_QP_OP_ERR, the QP to ERR),
        // and a program on this backend must see what the device does. The provider copies inline data from
        // the SGE's address inside ibv_post_send, in this process: a bad address kills the JVM
        // (SIGSEGV), a live unregistered one sends memory nobody offered. This backend otherwise leaves
        // checking to libibverbs; here issue 13 asks for the rule because a crash is the alternative.
        // It is the emulator's rule too (RegisteredMemory.inlineProblem). What it cannot close: an
        // arena closed by another thread between this check and the provider's copy.
        int count = 0;
        String problem = null;
        for (; count < requested; count++) {
            SendWr wr = list[count];
            if (type == QpType.UD && (!(wr.ah() instanceof IbvAh ah) || ah.isClosed())) {
                problem = "ibv_post_send: a UD send needs an open address handle of this provider";
                break;
            }
            if (wr.opcode() == WrOpcode.BIND_MW && !(wr.mw() instanceof IbvMw mw && !mw.isClosed()
                    && wr.bindInfo().mr() instanceof IbvMr mr && !mr.isClosed())) {
                // rdma-core's rxe convert_send_wr dereferences bind_info.mr and mw: NULL would kill the JVM.
                problem = "ibv_post_send: a BIND_MW needs an open window and region of this provider";
                break;
            }
            String outside = wr.has(SendFlag.INLINE) ? registeredMemory.inlineProblem(wr.sgList()) : null;
            if (outside != null) {
                problem = "ibv_post_send: " + outside;
                break;
            }
        }
        if (count > 0) {
            encodeAndPost(fn, qp, list, count);
        }
        if (problem != null) {
            throw new BadWorkRequestException(Errno.EINVAL, count, list[count].wrId(), problem);
        }
    }

    private void encodeAndPost(MemorySegment fn, MemorySegment qp, SendWr[] list, int count) {
        int totalSges = 0;
        for (int i = 0; i < count; i++) {
            totalSges += list[i].sgList().count();
        }
        ensureCapacity(count, totalSges);
        long sgeAt = 0;
        for (int i = 0; i < count; i++) {
            SendWr wr = list[i];
            long at = i * WR_SIZE;
            ScatterGatherList sgl = wr.sgList();
            WrOpcode opcode = wr.opcode();
            wrs.set(JAVA_LONG, at + WR_ID, wr.wrId());
            // Pointers written as 64-bit numbers: no MemorySegment object per field.
            wrs.set(JAVA_LONG, at + NEXT, i + 1 < count ? wrs.address() + (i + 1) * WR_SIZE : 0L);
            wrs.set(JAVA_LONG, at + SG_LIST, sgl.count() == 0 ? 0L : sges.address() + sgeAt);
            wrs.set(JAVA_INT, at + NUM_SGE, sgl.count());
            wrs.set(JAVA_INT, at + OPCODE, opcode.value());
            wrs.set(JAVA_INT, at + SEND_FLAGS, wr.sendFlags());
            if (opcode.hasImmediate()) {
                wrs.set(BIG_ENDIAN_INT, at + IMM_DATA, wr.immData());
            } else {
                wrs.set(JAVA_INT, at + IMM_DATA, wr.invalidateRkey());   // the union's invalidate_rkey
            }
            if (type == QpType.UD) {
                wrs.set(JAVA_LONG, at + UD_AH, ((IbvAh) wr.ah()).ah.address());
                wrs.set(JAVA_INT, at + UD_REMOTE_QPN, wr.remoteQpn());
                wrs.set(JAVA_INT, at + UD_REMOTE_QKEY, wr.remoteQkey());
            } else if (opcode == WrOpcode.BIND_MW) {
                MwBindInfo info = wr.bindInfo();
                wrs.set(JAVA_LONG, at + BIND_MW_MW, ((IbvMw) wr.mw()).mw.address());
                wrs.set(JAVA_INT, at + BIND_MW_RKEY, wr.bindRkey());
                wrs.set(JAVA_LONG, at + BIND_MR, ((IbvMr) info.mr()).mr.address());
                wrs.set(JAVA_LONG, at + BIND_ADDR, info.addr());
                wrs.set(JAVA_LONG, at + BIND_LENGTH, info.length());
                wrs.set(JAVA_INT, at + BIND_ACCESS, AccessFlag.bits(info.mwAccessFlags()));
            } else if (opcode.isAtomic()) {
                wrs.set(JAVA_LONG, at + ATOMIC_REMOTE_ADDR, wr.remoteAddr());
                wrs.set(JAVA_LONG, at + ATOMIC_COMPARE_ADD, wr.compareAdd());
                wrs.set(JAVA_LONG, at + ATOMIC_SWAP, wr.swap());
                wrs.set(JAVA_INT, at + ATOMIC_RKEY, wr.rkey());
            } else {
                wrs.set(JAVA_LONG, at + RDMA_REMOTE_ADDR, wr.remoteAddr());
                wrs.set(JAVA_INT, at + RDMA_RKEY, wr.rkey());
            }
            sgeAt = RecvWrChain.writeSges(sges, sgeAt, sgl);
        }
        badWr.set(JAVA_LONG, 0, 0L);
        int errno;
        try {
            errno = (int) Ops.POST.invokeExact(fn, qp, wrs, badWr);
        } catch (Throwable t) {
            throw new IllegalStateException("post_send failed", t);
        }
        if (errno != 0) {
            int index = RecvWrChain.badIndex(badWr, wrs, WR_SIZE, count);
            throw new BadWorkRequestException(Errno.of(Math.abs(errno)), index, list[index].wrId(),
                    "ibv_post_send failed");
        }
    }

    private void ensureCapacity(int count, int totalSges) {
        if (wrs.byteSize() < count * WR_SIZE) {
            wrs = arena.allocate(WR_SIZE * Integer.highestOneBit(count) * 2, 8);
        }
        if (sges.byteSize() < totalSges * SGE_SIZE) {
            sges = arena.allocate(SGE_SIZE * Integer.highestOneBit(totalSges) * 2, 8);
        }
    }
}
