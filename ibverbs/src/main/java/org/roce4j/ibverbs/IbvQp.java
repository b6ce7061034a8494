package org.roce4j.ibverbs;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import java.lang.foreign.Arena;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.util.EnumSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.function.Consumer;

import org.roce4j.verbs.AccessFlag;
import org.roce4j.verbs.Errno;
import org.roce4j.verbs.Gid;
import org.roce4j.verbs.Mtu;
import org.roce4j.verbs.Mw;
import org.roce4j.verbs.MwBind;
import org.roce4j.verbs.MwBindInfo;
import org.roce4j.verbs.Pd;
import org.roce4j.verbs.Qp;
import org.roce4j.verbs.QpAttr;
import org.roce4j.verbs.QpAttrMask;
import org.roce4j.verbs.QpCap;
import org.roce4j.verbs.QpInitAttr;
import org.roce4j.verbs.QpState;
import org.roce4j.verbs.QpType;
import org.roce4j.verbs.RecvWr;
import org.roce4j.verbs.SendWr;
import org.roce4j.verbs.VerbsException;

/** A queue pair: {@code struct ibv_qp *}, with its own native work-request arrays for posting. */
final class IbvQp extends Resource implements Qp {
    private static final MemoryLayout A = Layouts.IBV_QP_ATTR;

    private final IbvPd pd;
    final MemorySegment qp;
    private final QpInitAttr initAttr;
    private final IbvCq sendCq;
    private final IbvCq recvCq;
    private final IbvSrq srq;
    private final int qpNum;
    private final Arena arena = Arena.ofShared();
    private final SendWrChain sendChain;
    private final RecvWrChain recvChain;
    /** How the QP is destroyed: {@code ibv_destroy_qp}, or {@code rdma_destroy_qp} for a CM id's QP. */
    private final Consumer<MemorySegment> destroy;

    IbvQp(IbvPd pd, MemorySegment qp, QpInitAttr initAttr, IbvCq sendCq, IbvCq recvCq, IbvSrq srq,
          Consumer<MemorySegment> destroy) {
        this.pd = pd;
        this.destroy = destroy;
        this.qp = qp;
        this.initAttr = initAttr;
        this.sendCq = sendCq;
        this.recvCq = recvCq;
        this.srq = srq;
        this.qpNum = qp.get(JAVA_INT, Layouts.offset(Layouts.IBV_QP, "qp_num"));
        this.sendChain = new SendWrChain(arena, initAttr.type(), pd.context.registeredMemory);
        this.recvChain = new RecvWrChain(arena);
    }

    @Override
    String kind() {
        return "queue pair";
    }

    @Override
    public int qpNum() {
        return qpNum;
    }

    @Override
    public QpType type() {
        return initAttr.type();
    }

    @Override
    public Pd pd() {
        return pd;
    }

    @Override
    public QpInitAttr initAttr() {
        return initAttr;
    }

    @Override
    public QpState state() {
        return query(EnumSet.of(QpAttrMask.STATE)).qpState();
    }

    @Override
    public void modify(QpAttr attr, Set<QpAttrMask> mask) {
        Objects.requireNonNull(attr, "attr");
        Objects.requireNonNull(mask, "mask");
        checkOpen("ibv_modify_qp");
        try (Arena scratch = Arena.ofConfined()) {
            MemorySegment a = scratch.allocate(A);
            write(a, attr);
            LibIbverbs.status("ibv_modify_qp", pd.context.lib.modifyQp, qp, a, QpAttrMask.bits(mask));
        }
    }

    /**
     * Writes every field of {@code attr} into a native {@code struct ibv_qp_attr} (the mask says which the
     * callee reads): {@code ibv_modify_qp}'s argument.
     *
     * @param a    the native struct
     * @param attr the attributes
     */
    static void write(MemorySegment a, QpAttr attr) {
        set(a, "qp_state", attr.qpState().value());
        set(a, "cur_qp_state", attr.curQpState().value());
        set(a, "path_mtu", attr.pathMtu().value());
        set(a, "qkey", attr.qkey());
        set(a, "rq_psn", attr.rqPsn());
        set(a, "sq_psn", attr.sqPsn());
        set(a, "dest_qp_num", attr.destQpNum());
        set(a, "qp_access_flags", AccessFlag.bits(attr.qpAccessFlags()));
        QpCap cap = attr.cap();
        set(a, "cap.max_send_wr", cap.maxSendWr());
        set(a, "cap.max_recv_wr", cap.maxRecvWr());
        set(a, "cap.max_send_sge", cap.maxSendSge());
        set(a, "cap.max_recv_sge", cap.maxRecvSge());
        set(a, "cap.max_inline_data", cap.maxInlineData());
        if (attr.ahAttr() != null) {
            IbvPd.writeAhAttr(a.asSlice(Layouts.offset(A, "ah_attr"), Layouts.IBV_AH_ATTR), attr.ahAttr());
        }
        a.set(JAVA_SHORT, Layouts.offset(A, "pkey_index"), (short) attr.pkeyIndex());
        setByte(a, "en_sqd_async_notify", attr.enSqdAsyncNotify() ? 1 : 0);
        setByte(a, "max_rd_atomic", attr.maxRdAtomic());
        setByte(a, "max_dest_rd_atomic", attr.maxDestRdAtomic());
        setByte(a, "min_rnr_timer", attr.minRnrTimer());
        setByte(a, "port_num", attr.portNum());
        setByte(a, "timeout", attr.timeout());
        setByte(a, "retry_cnt", attr.retryCnt());
        setByte(a, "rnr_retry", attr.rnrRetry());
    }

    /** A uint8_t field: a value that does not fit is EINVAL here rather than silently truncated. */
    private static void setByte(MemorySegment a, String field, int value) {
        if (value < 0 || value > 255) {
            throw new VerbsException(Errno.EINVAL, "ibv_modify_qp: " + field + " " + value + " does not fit in 8 bits");
        }
        a.set(JAVA_BYTE, Layouts.offset(A, field), (byte) value);
    }

    private static void set(MemorySegment a, String field, int value) {
        a.set(JAVA_INT, Layouts.offset(A, field), value);
    }

    private static int get(MemorySegment a, String field) {
        return a.get(JAVA_INT, Layouts.offset(A, field));
    }

    private static int getByte(MemorySegment a, String field) {
        return Byte.toUnsignedInt(a.get(JAVA_BYTE, Layouts.offset(A, field)));
    }

    @Override
    public QpAttr query(Set<QpAttrMask> mask) {
        Objects.requireNonNull(mask, "mask");
        checkOpen("ibv_query_qp");
        try (Arena scratch = Arena.ofConfined()) {
            MemorySegment a = scratch.allocate(A);
            MemorySegment init = scratch.allocate(Layouts.IBV_QP_INIT_ATTR);
            // Ask for every attribute: the API's query returns all of them, the mask only says which are needed.
            int all = QpAttrMask.bits(EnumSet.allOf(QpAttrMask.class));
            LibIbverbs.status("ibv_query_qp", pd.context.lib.queryQp, qp, a, all, init);
            QpState state = state(get(a, "qp_state"));
            EnumSet<QpAttrMask> fields = EnumSet.allOf(QpAttrMask.class);
            int mtu = get(a, "path_mtu");
            if (mtu < 1 || mtu > 5) {
                fields.remove(QpAttrMask.PATH_MTU); // a QP before RTR has none
            }
            if (type() == QpType.UD || state == QpState.RESET || state == QpState.INIT) {
                fields.remove(QpAttrMask.AV);
            }
            return read(a, fields).reportSqDraining(getByte(a, "sq_draining") != 0);
        }
    }

    /**
     * {@return the fields of a native {@code struct ibv_qp_attr} that {@code fields} names, in a
     * {@link QpAttr} whose mask is exactly those}: what {@code ibv_query_qp} and {@code rdma_init_qp_attr}
     * fill in. Fields the API has no place for (alternate path, migration state) are left out.
     *
     * @param a      the native struct
     * @param fields which fields to read
     */
    static QpAttr read(MemorySegment a, Set<QpAttrMask> fields) {
        QpAttr attr = new QpAttr();
        for (QpAttrMask field : fields) {
            switch (field) {
                case STATE -> attr.qpState(state(get(a, "qp_state")));
                case CUR_STATE -> attr.curQpState(state(get(a, "cur_qp_state")));
                case EN_SQD_ASYNC_NOTIFY -> attr.enSqdAsyncNotify(getByte(a, "en_sqd_async_notify") != 0);
                case ACCESS_FLAGS -> attr.qpAccessFlags(AccessFlag.of(get(a, "qp_access_flags")));
                case PKEY_INDEX -> attr.pkeyIndex(Short.toUnsignedInt(a.get(JAVA_SHORT, Layouts.offset(A, "pkey_index"))));
                case PORT -> attr.portNum(getByte(a, "port_num"));
                case QKEY -> attr.qkey(get(a, "qkey"));
                case AV -> attr.ahAttr(IbvPd.readAhAttr(a.asSlice(Layouts.offset(A, "ah_attr"), Layouts.IBV_AH_ATTR)));
                case PATH_MTU -> attr.pathMtu(Mtu.of(get(a, "path_mtu")));
                case TIMEOUT -> attr.timeout(getByte(a, "timeout"));
                case RETRY_CNT -> attr.retryCnt(getByte(a, "retry_cnt"));
                case RNR_RETRY -> attr.rnrRetry(getByte(a, "rnr_retry"));
                case RQ_PSN -> attr.rqPsn(get(a, "rq_psn"));
                case MAX_QP_RD_ATOMIC -> attr.maxRdAtomic(getByte(a, "max_rd_atomic"));
                case MIN_RNR_TIMER -> attr.minRnrTimer(getByte(a, "min_rnr_timer"));
                case SQ_PSN -> attr.sqPsn(get(a, "sq_psn"));
                case MAX_DEST_RD_ATOMIC -> attr.maxDestRdAtomic(getByte(a, "max_dest_rd_atomic"));
                case CAP -> attr.cap(new QpCap(get(a, "cap.max_send_wr"), get(a, "cap.max_recv_wr"),
                        get(a, "cap.max_send_sge"), get(a, "cap.max_recv_sge"), get(a, "cap.max_inline_data")));
                case DEST_QPN -> attr.destQpNum(get(a, "dest_qp_num"));
                case ALT_PATH, PATH_MIG_STATE -> {
                    // QpAttr has no alternate path
                }
            }
        }
        return attr;
    }

    /** {@code enum ibv_qp_state}; IBV_QPS_UNKNOWN (7), which the API has no name for, reads as ERR. */
    private static QpState state(int value) {
        return value >= 0 && value < QpState.values().length ? QpState.of(value) : QpState.ERR;
    }

    @Override
    public void postSend(SendWr wr) {
        Objects.requireNonNull(wr, "wr");
        synchronized (sendChain) {
            checkOpen("ibv_post_send");
            sendChain.post(pd.context.postSend, qp, wr);
        }
    }

    @Override
    public void postSend(List<SendWr> wrs) {
        Objects.requireNonNull(wrs, "wrs");
        synchronized (sendChain) {
            checkOpen("ibv_post_send");
            sendChain.post(pd.context.postSend, qp, wrs);
        }
    }

    /**
     * {@code ibv_bind_mw}: its inline checks ({@link MwBind#checkIbvBindMw}), then the provider's
     * {@code bind_mw} through {@code context->ops}, which posts the BIND_MW and writes the new rkey into the
     * {@code struct ibv_mw}. A bind without a region is refused first: rdma-core's rxe provider reads
     * {@code mr->lkey} of every bind, and a NULL there would kill the JVM.
     */
    @Override
    public void bindMw(Mw mw, MwBind bind) {
        Objects.requireNonNull(mw, "mw");
        Objects.requireNonNull(bind, "bind");
        MwBind.checkIbvBindMw(mw, bind);
        MwBindInfo info = bind.bindInfo();
        if (!(mw instanceof IbvMw window) || window.isClosed() || !(info.mr() instanceof IbvMr mr) || mr.isClosed()) {
            throw new VerbsException(Errno.EINVAL, "ibv_bind_mw: an open window and region of this provider are needed");
        }
        synchronized (sendChain) {
            checkOpen("ibv_bind_mw");
            try (Arena arena = Arena.ofConfined()) {
                var l = Layouts.IBV_MW_BIND;
                MemorySegment b = arena.allocate(l);
                b.set(JAVA_LONG, Layouts.offset(l, "wr_id"), bind.wrId());
                b.set(JAVA_INT, Layouts.offset(l, "send_flags"), bind.sendFlags());
                b.set(ADDRESS, Layouts.offset(l, "bind_info.mr"), mr.mr);
                b.set(JAVA_LONG, Layouts.offset(l, "bind_info.addr"), info.addr());
                b.set(JAVA_LONG, Layouts.offset(l, "bind_info.length"), info.length());
                b.set(JAVA_INT, Layouts.offset(l, "bind_info.mw_access_flags"), AccessFlag.bits(info.mwAccessFlags()));
                int errno = LibIbverbs.statusOf(pd.context.op("bind_mw"), Ops.BIND_MW, qp, window.mw, b);
                if (errno != 0) {
                    throw new VerbsException(Errno.of(errno), "ibv_bind_mw failed (errno " + errno + ")");
                }
            }
        }
    }

    @Override
    public void postRecv(RecvWr wr) {
        Objects.requireNonNull(wr, "wr");
        synchronized (recvChain) {
            checkOpen("ibv_post_recv");
            recvChain.post("ibv_post_recv", pd.context.postRecv, qp, wr);
        }
    }

    @Override
    public void postRecv(List<RecvWr> wrs) {
        Objects.requireNonNull(wrs, "wrs");
        synchronized (recvChain) {
            checkOpen("ibv_post_recv");
            recvChain.post("ibv_post_recv", pd.context.postRecv, qp, wrs);
        }
    }

    @Override
    public void attachMcast(Gid gid, int lid) {
        multicast("ibv_attach_mcast", pd.context.lib.attachMcast, gid, lid);
    }

    @Override
    public void detachMcast(Gid gid, int lid) {
        multicast("ibv_detach_mcast", pd.context.lib.detachMcast, gid, lid);
    }

    /** {@code ibv_attach_mcast} / {@code ibv_detach_mcast}: passed through, the kernel's errno as it is. */
    private void multicast(String verb, java.lang.invoke.MethodHandle call, Gid gid, int lid) {
        Objects.requireNonNull(gid, "gid");
        checkOpen(verb);
        try (Arena scratch = Arena.ofConfined()) {
            MemorySegment raw = scratch.allocate(16);
            MemorySegment.copy(gid.raw(), 0, raw, JAVA_BYTE, 0, 16);
            LibIbverbs.status(verb, call, qp, raw, (short) lid);
        }
    }

    @Override
    public void close() {
        closeOnce("ibv_destroy_qp", "users", () -> {
            synchronized (sendChain) {
                synchronized (recvChain) {
                    destroy.accept(qp);
                    pd.context.qps.remove(qp.address());
                    pd.removeChild();
                    sendCq.removeChild();
                    recvCq.removeChild();
                    if (srq != null) {
                        srq.removeChild();
                    }
                    arena.close();
                }
            }
        });
    }

    @Override
    public String toString() {
        return "IbvQp[" + type() + " " + qpNum + "]";
    }
}
