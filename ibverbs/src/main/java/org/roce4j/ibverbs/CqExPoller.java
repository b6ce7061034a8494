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
import java.util.Set;

import org.roce4j.verbs.CreateCqWcFlag;
import org.roce4j.verbs.Errno;
import org.roce4j.verbs.VerbsException;
import org.roce4j.verbs.WcOpcode;
import org.roce4j.verbs.WcStatus;

/**
 * The poll and read calls of a {@code struct ibv_cq_ex} (verbs.h: {@code ibv_start_poll} and the
 * {@code ibv_wc_read_*} functions are static inline, one call through {@code cq->start_poll} and the others),
 * as downcalls through its function pointers. What the provider answers passes through (rdma-core 44's rxe
 * included: see {@link org.roce4j.verbs.CqEx}); a read the provider has no pointer for (a field not in
 * {@code wc_flags}) is EOPNOTSUPP, and a call outside start … end EINVAL, instead of a call through NULL or of
 * a read of a completion the provider no longer holds.
 */
@SuppressWarnings("restricted")   // this is the module that calls native code (FFM)
final class CqExPoller {
    private static final Linker LINKER = Linker.nativeLinker();
    private static final Linker.Option CRITICAL = Linker.Option.critical(false);
    private static final MethodHandle I_AA = LINKER.downcallHandle(FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS), CRITICAL);
    private static final MethodHandle I_A = LINKER.downcallHandle(FunctionDescriptor.of(JAVA_INT, ADDRESS), CRITICAL);
    private static final MethodHandle V_A = LINKER.downcallHandle(FunctionDescriptor.ofVoid(ADDRESS), CRITICAL);
    private static final MethodHandle B_A = LINKER.downcallHandle(FunctionDescriptor.of(JAVA_BYTE, ADDRESS), CRITICAL);
    private static final MethodHandle J_A = LINKER.downcallHandle(FunctionDescriptor.of(JAVA_LONG, ADDRESS), CRITICAL);
    private static final MemoryLayout L = ExtendedLayouts.IBV_CQ_EX;
    private static final long STATUS = Layouts.offset(L, "status");
    private static final long WR_ID = Layouts.offset(L, "wr_id");
    private static final WcStatus[] STATUSES = WcStatus.values();

    private final MemorySegment cqEx;
    private final Set<CreateCqWcFlag> wcFlags;
    private final MemorySegment[] op = new MemorySegment[ExtendedLayouts.CQ_EX_OPS.size()];
    /** {@code struct ibv_poll_cq_attr} with comp_mask 0, made once. */
    private final MemorySegment pollAttr = Arena.global().allocate(ExtendedLayouts.IBV_POLL_CQ_ATTR);
    private boolean polling;

    CqExPoller(MemorySegment cqEx, Set<CreateCqWcFlag> wcFlags) {
        this.cqEx = cqEx.reinterpret(L.byteSize());
        this.wcFlags = wcFlags;
        for (int i = 0; i < op.length; i++) {
            op[i] = this.cqEx.get(ADDRESS, Layouts.offset(L, ExtendedLayouts.CQ_EX_OPS.get(i)));
        }
    }

    Set<CreateCqWcFlag> wcFlags() {
        return wcFlags;
    }

    int startPoll() {
        if (polling) {
            throw new VerbsException(Errno.EINVAL, "ibv_start_poll: a poll is under way: ibv_end_poll first");
        }
        int ret;
        try {
            ret = (int) I_AA.invokeExact(op[0], cqEx, pollAttr);
        } catch (Throwable t) {
            throw failed(t);
        }
        polling = ret == 0; // ENOENT: the provider released the CQ, and no ibv_end_poll follows
        return ret;
    }

    int nextPoll() {
        requirePolling("ibv_next_poll");
        try {
            return (int) I_A.invokeExact(op[1], cqEx);
        } catch (Throwable t) {
            throw failed(t);
        }
    }

    void endPoll() {
        requirePolling("ibv_end_poll");
        polling = false;
        try {
            V_A.invokeExact(op[2], cqEx);
        } catch (Throwable t) {
            throw failed(t);
        }
    }

    long wrId() {
        requirePolling("cq->wr_id");
        return cqEx.get(JAVA_LONG, WR_ID);
    }

    WcStatus status() {
        requirePolling("cq->status");
        return STATUSES[cqEx.get(JAVA_INT, STATUS)];
    }

    WcOpcode readOpcode() {
        return WcOpcode.of(readInt(3, "ibv_wc_read_opcode", null));
    }

    int readVendorErr() {
        return readInt(4, "ibv_wc_read_vendor_err", null);
    }

    int readByteLen() {
        return readInt(5, "ibv_wc_read_byte_len", CreateCqWcFlag.BYTE_LEN);
    }

    /** __be32 as the provider gives it, turned into the value the peer posted (as WorkCompletion.immData). */
    int readImmData() {
        int raw = readInt(6, "ibv_wc_read_imm_data", CreateCqWcFlag.IMM);
        return ByteOrder.nativeOrder() == ByteOrder.BIG_ENDIAN ? raw : Integer.reverseBytes(raw);
    }

    int readQpNum() {
        return readInt(7, "ibv_wc_read_qp_num", CreateCqWcFlag.QP_NUM);
    }

    int readSrcQp() {
        return readInt(8, "ibv_wc_read_src_qp", CreateCqWcFlag.SRC_QP);
    }

    int readWcFlags() {
        return readInt(9, "ibv_wc_read_wc_flags", null);
    }

    int readSlid() {
        return readInt(10, "ibv_wc_read_slid", CreateCqWcFlag.SLID);
    }

    int readSl() {
        return readByte(11, "ibv_wc_read_sl", CreateCqWcFlag.SL);
    }

    int readDlidPathBits() {
        return readByte(12, "ibv_wc_read_dlid_path_bits", CreateCqWcFlag.DLID_PATH_BITS);
    }

    long readCompletionTs() {
        MemorySegment fn = reader(13, "ibv_wc_read_completion_ts", CreateCqWcFlag.COMPLETION_TIMESTAMP);
        try {
            return (long) J_A.invokeExact(fn, cqEx);
        } catch (Throwable t) {
            throw failed(t);
        }
    }

    private int readInt(int index, String verb, CreateCqWcFlag field) {
        MemorySegment fn = reader(index, verb, field);
        try {
            return (int) I_A.invokeExact(fn, cqEx);
        } catch (Throwable t) {
            throw failed(t);
        }
    }

    private int readByte(int index, String verb, CreateCqWcFlag field) {
        MemorySegment fn = reader(index, verb, field);
        try {
            return Byte.toUnsignedInt((byte) B_A.invokeExact(fn, cqEx));
        } catch (Throwable t) {
            throw failed(t);
        }
    }

    private MemorySegment reader(int index, String verb, CreateCqWcFlag field) {
        requirePolling(verb);
        MemorySegment fn = op[index];
        if ((field != null && !wcFlags.contains(field)) || fn.equals(MemorySegment.NULL)) {
            throw new VerbsException(Errno.EOPNOTSUPP, verb + ": the CQ was not created with IBV_WC_EX_WITH_" + field
                    + " (the provider's pointer is NULL)");
        }
        return fn;
    }

    private void requirePolling(String verb) {
        if (!polling) {
            throw new VerbsException(Errno.EINVAL, verb + ": outside ibv_start_poll ... ibv_end_poll");
        }
    }

    private static IllegalStateException failed(Throwable t) {
        return new IllegalStateException("ibv_cq_ex call failed", t);
    }
}
