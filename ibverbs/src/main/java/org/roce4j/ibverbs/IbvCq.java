package org.roce4j.ibverbs;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.Objects;

import org.roce4j.verbs.CompChannel;
import org.roce4j.verbs.Context;
import org.roce4j.verbs.CqEx;
import org.roce4j.verbs.CreateCqWcFlag;
import org.roce4j.verbs.Errno;
import org.roce4j.verbs.VerbsException;
import org.roce4j.verbs.WcFlag;
import org.roce4j.verbs.WcOpcode;
import org.roce4j.verbs.WcStatus;
import org.roce4j.verbs.WorkCompletion;

/**
 * A completion queue: {@code struct ibv_cq *}. {@link #poll} calls the context's {@code poll_cq}
 * into a native {@code struct ibv_wc} array made once per CQ, so polling allocates nothing but the
 * {@link WorkCompletion} records it returns.
 */
@SuppressWarnings("restricted")   // this is the module that calls native code (FFM)
final class IbvCq extends Resource implements CqEx {
    /** Entries of the native ibv_wc array one poll_cq call fills. */
    static final int BATCH = 32;
    private static final long WC_SIZE = Layouts.IBV_WC.byteSize();
    private static final long WR_ID = Layouts.offset(Layouts.IBV_WC, "wr_id");
    private static final long STATUS = Layouts.offset(Layouts.IBV_WC, "status");
    private static final long OPCODE = Layouts.offset(Layouts.IBV_WC, "opcode");
    private static final long VENDOR_ERR = Layouts.offset(Layouts.IBV_WC, "vendor_err");
    private static final long BYTE_LEN = Layouts.offset(Layouts.IBV_WC, "byte_len");
    private static final long IMM_DATA = Layouts.offset(Layouts.IBV_WC, "imm_data");
    private static final long QP_NUM = Layouts.offset(Layouts.IBV_WC, "qp_num");
    private static final long SRC_QP = Layouts.offset(Layouts.IBV_WC, "src_qp");
    private static final long WC_FLAGS = Layouts.offset(Layouts.IBV_WC, "wc_flags");
    private static final long PKEY_INDEX = Layouts.offset(Layouts.IBV_WC, "pkey_index");
    private static final long SLID = Layouts.offset(Layouts.IBV_WC, "slid");
    private static final long SL = Layouts.offset(Layouts.IBV_WC, "sl");
    private static final long CQE = Layouts.offset(Layouts.IBV_CQ, "cqe");
    private static final long DLID_PATH_BITS = Layouts.offset(Layouts.IBV_WC, "dlid_path_bits");
    /** imm_data is __be32: the value the peer posted, in network byte order. */
    private static final ValueLayout.OfInt BIG_ENDIAN_INT = JAVA_INT.withOrder(ByteOrder.BIG_ENDIAN);
    private static final WcStatus[] STATUSES = WcStatus.values();
    private static final WcOpcode[] OPCODES = new WcOpcode[256];

    static {
        for (WcOpcode opcode : WcOpcode.values()) {
            OPCODES[opcode.value()] = opcode;
        }
    }

    final IbvContext context;
    final MemorySegment cq;
    private final IbvCompChannel channel;
    private final Arena arena = Arena.ofShared();
    private final MemorySegment wcs;
    private int unackedEvents;

    /** The ibv_cq_ex calls, for a CQ from ibv_create_cq_ex; null for one from ibv_create_cq (it has none). */
    private final CqExPoller ex;

    IbvCq(IbvContext context, MemorySegment cq, IbvCompChannel channel) {
        this(context, cq, channel, null);
    }

    /** A CQ from ibv_create_cq_ex: its {@code struct ibv_cq_ex} begins with the fields of {@code struct ibv_cq}. */
    IbvCq(IbvContext context, MemorySegment cq, IbvCompChannel channel, CqExPoller ex) {
        this.context = context;
        this.cq = cq.reinterpret(Layouts.IBV_CQ.byteSize());
        this.channel = channel;
        this.wcs = arena.allocate(Layouts.IBV_WC, BATCH);
        this.ex = ex;
    }

    // ---- ibv_cq_ex ---------------------------------------------------------------------------

    private CqExPoller ex(String verb) {
        if (ex == null) {
            throw new VerbsException(Errno.EOPNOTSUPP, verb + ": a CQ from ibv_create_cq has no ibv_cq_ex");
        }
        checkOpen(verb);
        return ex;
    }

    @Override
    public java.util.Set<CreateCqWcFlag> wcFlags() {
        return ex == null ? java.util.Set.of() : ex.wcFlags();
    }

    @Override
    public int startPoll() {
        return ex("ibv_start_poll").startPoll();
    }

    @Override
    public int nextPoll() {
        return ex("ibv_next_poll").nextPoll();
    }

    @Override
    public void endPoll() {
        ex("ibv_end_poll").endPoll();
    }

    @Override
    public long wrId() {
        return ex("cq->wr_id").wrId();
    }

    @Override
    public WcStatus status() {
        return ex("cq->status").status();
    }

    @Override
    public WcOpcode readOpcode() {
        return ex("ibv_wc_read_opcode").readOpcode();
    }

    @Override
    public int readVendorErr() {
        return ex("ibv_wc_read_vendor_err").readVendorErr();
    }

    @Override
    public int readByteLen() {
        return ex("ibv_wc_read_byte_len").readByteLen();
    }

    @Override
    public int readImmData() {
        return ex("ibv_wc_read_imm_data").readImmData();
    }

    @Override
    public int readQpNum() {
        return ex("ibv_wc_read_qp_num").readQpNum();
    }

    @Override
    public int readSrcQp() {
        return ex("ibv_wc_read_src_qp").readSrcQp();
    }

    @Override
    public int readWcFlags() {
        return ex("ibv_wc_read_wc_flags").readWcFlags();
    }

    @Override
    public int readSlid() {
        return ex("ibv_wc_read_slid").readSlid();
    }

    @Override
    public int readSl() {
        return ex("ibv_wc_read_sl").readSl();
    }

    @Override
    public int readDlidPathBits() {
        return ex("ibv_wc_read_dlid_path_bits").readDlidPathBits();
    }

    @Override
    public long readCompletionTs() {
        return ex("ibv_wc_read_completion_ts").readCompletionTs();
    }

    @Override
    String kind() {
        return "completion queue";
    }

    @Override
    public Context context() {
        return context;
    }

    @Override
    public int capacity() {
        return cq.get(JAVA_INT, CQE);   // cq->cqe: the provider updates it at ibv_resize_cq
    }

    /** {@code ibv_resize_cq}: what the device answers, passed through; the granted depth is then in cq->cqe. */
    @Override
    public synchronized int resize(int cqe) {
        checkOpen("ibv_resize_cq");
        LibIbverbs.status("ibv_resize_cq", context.lib.resizeCq, cq, cqe);
        return capacity();
    }

    @Override
    public CompChannel channel() {
        return channel;
    }

    @Override
    public synchronized int poll(WorkCompletion[] completions) {
        Objects.requireNonNull(completions, "completions");
        checkOpen("ibv_poll_cq");
        int total = 0;
        while (total < completions.length) {
            int want = Math.min(BATCH, completions.length - total);
            int got;
            try {
                got = (int) Ops.POLL_CQ.invokeExact(context.pollCq, cq, want, wcs);
            } catch (Throwable t) {
                throw new IllegalStateException("poll_cq failed", t);
            }
            if (got < 0) {
                throw new VerbsException(Errno.EINVAL, "ibv_poll_cq returned " + got + " (CQ in error)");
            }
            for (int i = 0; i < got; i++) {
                completions[total + i] = read(wcs, i * WC_SIZE);
            }
            total += got;
            if (got < want) {
                break;
            }
        }
        return total;
    }

    private static WorkCompletion read(MemorySegment wc, long at) {
        int status = wc.get(JAVA_INT, at + STATUS);
        int opcode = wc.get(JAVA_INT, at + OPCODE);
        int flags = wc.get(JAVA_INT, at + WC_FLAGS);
        boolean withImm = WcFlag.WITH_IMM.isSetIn(flags);
        boolean withInv = WcFlag.WITH_INV.isSetIn(flags);
        return new WorkCompletion(
                wc.get(JAVA_LONG, at + WR_ID),
                status >= 0 && status < STATUSES.length ? STATUSES[status] : WcStatus.GENERAL_ERR,
                // libibverbs: the opcode of an error completion is undefined; an unknown one reads as SEND.
                opcode >= 0 && opcode < OPCODES.length && OPCODES[opcode] != null ? OPCODES[opcode] : WcOpcode.SEND,
                wc.get(JAVA_INT, at + VENDOR_ERR),
                wc.get(JAVA_INT, at + BYTE_LEN),
                withImm ? wc.get(BIG_ENDIAN_INT, at + IMM_DATA) : 0,
                withInv ? wc.get(JAVA_INT, at + IMM_DATA) : 0,
                wc.get(JAVA_INT, at + QP_NUM),
                wc.get(JAVA_INT, at + SRC_QP),
                flags,
                Short.toUnsignedInt(wc.get(JAVA_SHORT, at + PKEY_INDEX)),
                Short.toUnsignedInt(wc.get(JAVA_SHORT, at + SLID)),
                Byte.toUnsignedInt(wc.get(JAVA_BYTE, at + SL)),
                Byte.toUnsignedInt(wc.get(JAVA_BYTE, at + DLID_PATH_BITS)));
    }

    @Override
    public void reqNotify(boolean solicitedOnly) {
        checkOpen("ibv_req_notify_cq");
        if (channel == null) {
            throw new VerbsException(Errno.EINVAL, "ibv_req_notify_cq: the CQ has no completion channel");
        }
        int errno;
        try {
            errno = (int) Ops.REQ_NOTIFY_CQ.invokeExact(context.reqNotifyCq, cq, solicitedOnly ? 1 : 0);
        } catch (Throwable t) {
            throw new IllegalStateException("req_notify_cq failed", t);
        }
        if (errno != 0) {
            throw new VerbsException(Errno.of(Math.abs(errno)), "ibv_req_notify_cq failed");
        }
    }

    synchronized void eventDelivered() {
        unackedEvents++;
    }

    synchronized void acknowledge(int events) {
        if (events < 0 || events > unackedEvents) {
            throw new VerbsException(Errno.EINVAL, "ibv_ack_cq_events: " + events + " events acknowledged, "
                    + unackedEvents + " outstanding");
        }
        LibIbverbs.call(context.lib.ackCqEvents, cq, events);
        unackedEvents -= events;
    }

    @Override
    public void close() {
        closeOnce("ibv_destroy_cq", "QPs or SRQs using it", () -> {
            synchronized (this) {
                // ibv_destroy_cq would wait forever for the acknowledgements.
                if (unackedEvents > 0) {
                    throw new VerbsException(Errno.EBUSY, "ibv_destroy_cq: " + unackedEvents
                            + " completion events not acknowledged");
                }
            }
            LibIbverbs.status("ibv_destroy_cq", context.lib.destroyCq, cq);
            context.cqs.remove(cq.address());
            context.removeChild();
            if (channel != null) {
                channel.removeChild();
            }
            arena.close();
        });
    }
}
