package org.roce4j.verbs;

import java.lang.foreign.MemorySegment;
import java.util.Objects;
import java.util.Set;

/**
 * A protection domain: {@code struct ibv_pd}. Memory regions, queue pairs, shared receive queues and
 * address handles belong to one; a remote access succeeds only through a QP of the same PD as the
 * region (IBTA 10.2.3). Closing it while any of those is alive fails with EBUSY.
 */
public interface Pd extends AutoCloseable {
    /** {@return the context this PD was allocated on} */
    Context context();

    /**
     * {@return a registered memory region over {@code memory}: {@code ibv_reg_mr}}. EINVAL when
     * REMOTE_WRITE or REMOTE_ATOMIC is asked without LOCAL_WRITE (IBTA 10.6.3.1, o10-26), when the
     * segment is not native, or when it is empty.
     *
     * @param memory native memory; peers address it by its own address
     * @param access the rights: LOCAL_WRITE, REMOTE_WRITE, REMOTE_READ, REMOTE_ATOMIC, MW_BIND; ON_DEMAND
     *               for an on-demand-paging region (EOPNOTSUPP where the device has no ODP, EINVAL on Linux 6.1)
     */
    default Mr regMr(MemorySegment memory, Set<AccessFlag> access) {
        return regMr(memory, Objects.requireNonNull(memory, "memory").address(), access);
    }

    /**
     * {@return a registered memory region over {@code memory} that local SGEs and remote peers
     * address starting at {@code iova} instead of the memory's own address (what {@link Mr#address()}
     * then returns): {@code ibv_reg_mr_iova}}. Same errors as {@link #regMr(MemorySegment, Set)}, and
     * EINVAL when iova + length wraps past 2^64.
     *
     * @param memory native memory
     * @param iova   the I/O virtual address of its first byte
     * @param access the rights
     */
    Mr regMr(MemorySegment memory, long iova, Set<AccessFlag> access);

    /**
     * {@return a new queue pair, in RESET: {@code ibv_create_qp}}; EINVAL for caps beyond the
     * device's limits or a missing CQ.
     *
     * @param initAttr its type, CQs, SRQ and queue sizes
     */
    Qp createQp(QpInitAttr initAttr);

    /**
     * {@return a new extended queue pair, whose send work requests are posted through the {@code ibv_wr_*}
     * builder: {@code ibv_create_qp_ex} with {@code IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS}}
     * Same errors as {@link #createQp}, and EOPNOTSUPP for an operation the provider cannot do on that QP
     * type (rxe: RC takes every operation but TSO, UC only RDMA WRITE (with immediate), SEND (with
     * immediate or invalidate) and BIND_MW, UD only SEND (with immediate)).
     *
     * @param initAttr the QP's attributes and its {@code send_ops_flags}
     */
    default QpEx createQpEx(QpInitAttrEx initAttr) {
        throw new VerbsException(Errno.EOPNOTSUPP, "ibv_create_qp_ex: not supported by this provider");
    }

    /**
     * {@return a new shared receive queue: {@code ibv_create_srq}}
     *
     * @param initAttr its size and limit
     */
    Srq createSrq(SrqInitAttr initAttr);

    /**
     * {@return a new address handle, the destination of UD sends: {@code ibv_create_ah}}
     *
     * @param attr the address vector
     */
    Ah createAh(AhAttr attr);

    /**
     * {@return a new memory window of {@code type}: {@code ibv_alloc_mw}}; a type 1 window is valid but
     * bound to nothing, a type 2 window is free until a BIND_MW work request binds it. EOPNOTSUPP from a
     * provider without windows; ENOMEM past the device's max_mw.
     *
     * @param type TYPE_1 or TYPE_2
     */
    default Mw allocMw(MwType type) {
        throw new VerbsException(Errno.EOPNOTSUPP, "ibv_alloc_mw: not supported by this provider");
    }

    /**
     * {@return an implicit on-demand-paging region over the whole address space:
     * {@code ibv_reg_mr(pd, NULL, SIZE_MAX, access | IBV_ACCESS_ON_DEMAND)}} Only for a device whose
     * {@link OdpCaps#generalCaps()} has SUPPORT_IMPLICIT; others refuse it (rxe with ODP: EINVAL,
     * {@code rxe_odp_mr_init_user}; without ODP: EOPNOTSUPP, EINVAL on Linux 6.1).
     *
     * @param access the rights; ON_DEMAND is added
     */
    default Mr regImplicitOdpMr(Set<AccessFlag> access) {
        throw new VerbsException(Errno.EOPNOTSUPP, "implicit ODP registration: not supported by this provider");
    }

    /**
     * Advises the device about ranges of on-demand-paging regions of this PD: {@code ibv_advise_mr}. Only
     * prefetch advice exists. EOPNOTSUPP from a device without ODP (the provider's or the kernel's missing
     * {@code advise_mr}); EINVAL for an empty list or an SGE whose lkey names no valid region of this PD
     * with LOCAL_WRITE, or a region that is not ODP; with {@link AdviseMrFlag#FLUSH} the prefetch happens
     * before the call returns and a range outside its region is EFAULT (without it the call returns at once
     * and such a range is ignored, best effort: rxe_odp.c {@code rxe_ib_advise_mr_prefetch}).
     *
     * @param advice what to do with the ranges
     * @param flags  FLUSH or nothing
     * @param sgl    the ranges: address, length and lkey of the region they lie in
     */
    default void adviseMr(AdviseMrAdvice advice, Set<AdviseMrFlag> flags, ScatterGatherList sgl) {
        throw new VerbsException(Errno.EOPNOTSUPP, "ibv_advise_mr: not supported by this provider");
    }

    /** {@code ibv_dealloc_pd}. */
    @Override
    void close();
}
