package org.roce4j.ibverbs;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.EnumSet;
import java.util.Objects;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;

import org.roce4j.verbs.AccessFlag;
import org.roce4j.verbs.AdviseMrAdvice;
import org.roce4j.verbs.AdviseMrFlag;
import org.roce4j.verbs.Ah;
import org.roce4j.verbs.AhAttr;
import org.roce4j.verbs.Context;
import org.roce4j.verbs.Errno;
import org.roce4j.verbs.Mr;
import org.roce4j.verbs.Mw;
import org.roce4j.verbs.MwType;
import org.roce4j.verbs.Pd;
import org.roce4j.verbs.Qp;
import org.roce4j.verbs.QpCap;
import org.roce4j.verbs.QpEx;
import org.roce4j.verbs.QpInitAttr;
import org.roce4j.verbs.QpInitAttrEx;
import org.roce4j.verbs.ScatterGatherList;
import org.roce4j.verbs.Srq;
import org.roce4j.verbs.SrqInitAttr;
import org.roce4j.verbs.VerbsException;
import org.roce4j.verbs.spi.RegisteredMemory;

/** A protection domain: {@code struct ibv_pd *}. */
@SuppressWarnings("restricted")   // this is the module that calls native code (FFM)
final class IbvPd extends Resource implements Pd {
    final IbvContext context;
    final MemorySegment pd;

    IbvPd(IbvContext context, MemorySegment pd) {
        this.context = context;
        this.pd = pd;
    }

    @Override
    String kind() {
        return "protection domain";
    }

    @Override
    public Context context() {
        return context;
    }

    @Override
    public Mr regMr(MemorySegment memory, long iova, Set<AccessFlag> access) {
        Objects.requireNonNull(memory, "memory");
        Objects.requireNonNull(access, "access");
        checkOpen("ibv_reg_mr");
        String problem = RegisteredMemory.registrationProblem(memory, iova, access);
        // Not a check libibverbs makes: it cannot know that Java already freed the memory. The kernel
        // would pin whatever is mapped at that address now, and the device would write into memory the
        // JVM hands out again — corruption, which issue 13 rules out for any verbs call.
        if (problem == null && !memory.scope().isAlive()) {
            problem = "the segment's arena is already closed";
        }
        if (problem != null) {
            throw new VerbsException(Errno.EINVAL, "ibv_reg_mr: " + problem);
        }
        int bits = AccessFlag.bits(access);
        MemorySegment mr = iova == memory.address()
                ? LibIbverbs.pointer("ibv_reg_mr", context.lib.regMr, pd, memory, memory.byteSize(), bits)
                : LibIbverbs.pointer("ibv_reg_mr_iova", context.lib.regMrIova, pd, memory, memory.byteSize(), iova, bits);
        addChild();
        context.registeredMemory.add(memory);
        return new IbvMr(this, mr.reinterpret(Layouts.IBV_MR.byteSize()), memory, iova, access);
    }

    /**
     * Passes {@code ibv_reg_mr(pd, NULL, SIZE_MAX, access | IBV_ACCESS_ON_DEMAND)} through. The region covers the
     * whole address space, which no Java segment can: its {@link Mr#segment()} is empty (use its keys with
     * native addresses of any live memory).
     */
    @Override
    public Mr regImplicitOdpMr(Set<AccessFlag> access) {
        Objects.requireNonNull(access, "access");
        checkOpen("ibv_reg_mr");
        EnumSet<AccessFlag> odp = access.isEmpty() ? EnumSet.noneOf(AccessFlag.class) : EnumSet.copyOf(access);
        odp.add(AccessFlag.ON_DEMAND);
        MemorySegment mr = LibIbverbs.pointer("ibv_reg_mr", context.lib.regMr, pd, MemorySegment.NULL,
                SIZE_MAX, AccessFlag.bits(odp));
        addChild();
        return new IbvMr(this, mr.reinterpret(Layouts.IBV_MR.byteSize()), MemorySegment.NULL, 0, odp);
    }

    /** {@code length} of an implicit ODP registration: SIZE_MAX, all ones. */
    private static final long SIZE_MAX = -1L;

    @Override
    public void adviseMr(AdviseMrAdvice advice, Set<AdviseMrFlag> flags, ScatterGatherList sgl) {
        Objects.requireNonNull(advice, "advice");
        Objects.requireNonNull(flags, "flags");
        Objects.requireNonNull(sgl, "sgl");
        checkOpen("ibv_advise_mr");
        ExtendedVerbs.adviseMr(this, advice, flags, sgl);
    }

    @Override
    public Mw allocMw(MwType type) {
        Objects.requireNonNull(type, "type");
        checkOpen("ibv_alloc_mw");
        IbvMw mw = IbvMw.allocate(this, type);
        addChild();
        return mw;
    }

    @Override
    public Qp createQp(QpInitAttr initAttr) {
        return createQp(initAttr, "ibv_create_qp",
                attr -> LibIbverbs.pointer("ibv_create_qp", context.lib.createQp, pd, attr),
                qp -> LibIbverbs.status("ibv_destroy_qp", context.lib.destroyQp, qp));
    }

    @Override
    public QpEx createQpEx(QpInitAttrEx initAttr) {
        java.util.Objects.requireNonNull(initAttr, "initAttr");
        IbvQp qp = createQp(initAttr.base(), "ibv_create_qp_ex",
                attr -> ExtendedVerbs.createQpEx(this, attr, initAttr.sendOps()),
                created -> LibIbverbs.status("ibv_destroy_qp", context.lib.destroyQp, created));
        return new IbvQpEx(qp, ExtendedVerbs.qpToQpEx(context, qp.qp), initAttr.sendOps());
    }

    /**
     * Creates a QP on this PD the way {@code create} does — {@code ibv_create_qp}, or
     * {@code rdma_create_qp} for a CM id — from a filled {@code struct ibv_qp_init_attr}, and wraps it.
     *
     * @param verb    the C call, for messages
     * @param create  takes the filled init attr, returns the {@code struct ibv_qp *} (or throws)
     * @param destroy destroys it when the QP is closed
     */
    IbvQp createQp(QpInitAttr initAttr, String verb, UnaryOperator<MemorySegment> create,
                   Consumer<MemorySegment> destroy) {
        Objects.requireNonNull(initAttr, "initAttr");
        checkOpen(verb);
        IbvCq sendCq = cqOf(verb, "send_cq", initAttr.sendCq());
        IbvCq recvCq = cqOf(verb, "recv_cq", initAttr.recvCq());
        IbvSrq srq = null;
        if (initAttr.srq() != null) {
            if (!(initAttr.srq() instanceof IbvSrq s) || s.pd.context != context) {
                throw new VerbsException(Errno.EINVAL, verb + ": the SRQ belongs to another context");
            }
            s.checkOpen(verb);
            srq = s;
        }
        try (Arena arena = Arena.ofConfined()) {
            var l = Layouts.IBV_QP_INIT_ATTR;
            // Room for struct ibv_qp_init_attr_ex, which begins with the same fields: ibv_create_qp reads the
            // prefix, and createQpEx fills in the rest before create_qp_ex reads it all.
            MemorySegment a = arena.allocate(ExtendedLayouts.IBV_QP_INIT_ATTR_EX);
            a.set(ADDRESS, Layouts.offset(l, "send_cq"), sendCq.cq);
            a.set(ADDRESS, Layouts.offset(l, "recv_cq"), recvCq.cq);
            a.set(ADDRESS, Layouts.offset(l, "srq"), srq == null ? MemorySegment.NULL : srq.srq);
            QpCap cap = initAttr.cap();
            a.set(JAVA_INT, Layouts.offset(l, "cap.max_send_wr"), cap.maxSendWr());
            a.set(JAVA_INT, Layouts.offset(l, "cap.max_recv_wr"), cap.maxRecvWr());
            a.set(JAVA_INT, Layouts.offset(l, "cap.max_send_sge"), cap.maxSendSge());
            a.set(JAVA_INT, Layouts.offset(l, "cap.max_recv_sge"), cap.maxRecvSge());
            a.set(JAVA_INT, Layouts.offset(l, "cap.max_inline_data"), cap.maxInlineData());
            a.set(JAVA_INT, Layouts.offset(l, "qp_type"), initAttr.type().value());
            a.set(JAVA_INT, Layouts.offset(l, "sq_sig_all"), initAttr.sqSigAll() ? 1 : 0);
            MemorySegment qp = create.apply(a);
            // ibv_create_qp writes the capacities actually granted back into attr->cap.
            QpCap granted = new QpCap(
                    a.get(JAVA_INT, Layouts.offset(l, "cap.max_send_wr")),
                    a.get(JAVA_INT, Layouts.offset(l, "cap.max_recv_wr")),
                    a.get(JAVA_INT, Layouts.offset(l, "cap.max_send_sge")),
                    a.get(JAVA_INT, Layouts.offset(l, "cap.max_recv_sge")),
                    a.get(JAVA_INT, Layouts.offset(l, "cap.max_inline_data")));
            QpInitAttr actual = new QpInitAttr(initAttr.type(), initAttr.sendCq(), initAttr.recvCq(), initAttr.srq(),
                    granted, initAttr.sqSigAll());
            addChild();
            sendCq.addChild();
            recvCq.addChild();
            if (srq != null) {
                srq.addChild();
            }
            IbvQp created = new IbvQp(this, qp.reinterpret(Layouts.IBV_QP.byteSize()), actual, sendCq, recvCq, srq,
                    destroy);
            context.qps.put(created.qp.address(), created);
            return created;
        }
    }

    private IbvCq cqOf(String verb, String role, org.roce4j.verbs.Cq cq) {
        if (cq == null) {
            throw new VerbsException(Errno.EINVAL, verb + ": no " + role);
        }
        if (!(cq instanceof IbvCq ours) || ours.context != context) {
            throw new VerbsException(Errno.EINVAL, verb + ": the " + role + " belongs to another context");
        }
        ours.checkOpen(verb);
        return ours;
    }

    @Override
    public Srq createSrq(SrqInitAttr initAttr) {
        Objects.requireNonNull(initAttr, "initAttr");
        checkOpen("ibv_create_srq");
        try (Arena arena = Arena.ofConfined()) {
            var l = Layouts.IBV_SRQ_INIT_ATTR;
            MemorySegment a = arena.allocate(l);
            a.set(JAVA_INT, Layouts.offset(l, "attr.max_wr"), initAttr.maxWr());
            a.set(JAVA_INT, Layouts.offset(l, "attr.max_sge"), initAttr.maxSge());
            a.set(JAVA_INT, Layouts.offset(l, "attr.srq_limit"), initAttr.srqLimit());
            MemorySegment srq = LibIbverbs.pointer("ibv_create_srq", context.lib.createSrq, pd, a);
            addChild();
            IbvSrq created = new IbvSrq(this, srq.reinterpret(Layouts.IBV_SRQ.byteSize()));
            context.srqs.put(created.srq.address(), created);
            return created;
        }
    }

    @Override
    public Ah createAh(AhAttr attr) {
        Objects.requireNonNull(attr, "attr");
        checkOpen("ibv_create_ah");
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment a = arena.allocate(Layouts.IBV_AH_ATTR);
            writeAhAttr(a, attr);
            MemorySegment ah = LibIbverbs.pointer("ibv_create_ah", context.lib.createAh, pd, a);
            addChild();
            return new IbvAh(this, ah, attr);
        }
    }

    /** Fills a {@code struct ibv_ah_attr}: on RoCE every address is global (is_global 1, a GRH). */
    static void writeAhAttr(MemorySegment a, AhAttr attr) {
        var l = Layouts.IBV_AH_ATTR;
        MemorySegment.copy(attr.dgid().raw(), 0, a, JAVA_BYTE, Layouts.offset(l, "grh.dgid"), 16);
        a.set(JAVA_INT, Layouts.offset(l, "grh.flow_label"), attr.flowLabel());
        a.set(JAVA_BYTE, Layouts.offset(l, "grh.sgid_index"), (byte) attr.sgidIndex());
        a.set(JAVA_BYTE, Layouts.offset(l, "grh.hop_limit"), (byte) attr.hopLimit());
        a.set(JAVA_BYTE, Layouts.offset(l, "grh.traffic_class"), (byte) attr.trafficClass());
        a.set(JAVA_BYTE, Layouts.offset(l, "sl"), (byte) attr.sl());
        a.set(JAVA_BYTE, Layouts.offset(l, "is_global"), (byte) 1);
        a.set(JAVA_BYTE, Layouts.offset(l, "port_num"), (byte) attr.portNum());
    }

    /** Reads a {@code struct ibv_ah_attr} back. */
    static AhAttr readAhAttr(MemorySegment a) {
        var l = Layouts.IBV_AH_ATTR;
        byte[] dgid = a.asSlice(Layouts.offset(l, "grh.dgid"), 16).toArray(JAVA_BYTE);
        return new AhAttr(org.roce4j.verbs.Gid.of(dgid),
                Byte.toUnsignedInt(a.get(JAVA_BYTE, Layouts.offset(l, "grh.sgid_index"))),
                a.get(JAVA_INT, Layouts.offset(l, "grh.flow_label")),
                Byte.toUnsignedInt(a.get(JAVA_BYTE, Layouts.offset(l, "grh.hop_limit"))),
                Byte.toUnsignedInt(a.get(JAVA_BYTE, Layouts.offset(l, "grh.traffic_class"))),
                Byte.toUnsignedInt(a.get(JAVA_BYTE, Layouts.offset(l, "sl"))),
                Byte.toUnsignedInt(a.get(JAVA_BYTE, Layouts.offset(l, "port_num"))));
    }

    @Override
    public void close() {
        closeOnce("ibv_dealloc_pd", "MRs, QPs, SRQs or AHs", () -> {
            LibIbverbs.status("ibv_dealloc_pd", context.lib.deallocPd, pd);
            context.removeChild();
        });
    }
}
