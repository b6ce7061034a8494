package org.roce4j.verbs;

import java.lang.foreign.MemorySegment;
import java.util.Set;

/**
 * A protection domain: {@code struct ibv_pd}. Memory regions, queue pairs, shared receive queues and
 * address handles belong to one; a remote access succeeds only through a QP of the same PD as the
 * region (IBTA 10.2.3). Closing it while any of those is alive fails with EBUSY.
 */
public interface Pd extends AutoCloseable {
    Context context();

    /**
     * {@code ibv_reg_mr}: registers native memory. EINVAL when REMOTE_WRITE or REMOTE_ATOMIC is asked
     * without LOCAL_WRITE (IBTA 10.6.3.1, o10-26), when the segment is not native, or when it is empty.
     */
    default Mr regMr(MemorySegment memory, Set<AccessFlag> access) {
        return regMr(memory, memory.address(), access);
    }

    /**
     * {@code ibv_reg_mr_iova}: registers native memory that local SGEs and remote peers address
     * starting at {@code iova} instead of the memory's own address (what {@link Mr#address()} then
     * returns). Same errors as {@link #regMr(MemorySegment, Set)}, and EINVAL when iova + length
     * wraps past 2^64.
     */
    Mr regMr(MemorySegment memory, long iova, Set<AccessFlag> access);

    /** {@code ibv_create_qp}; EINVAL for caps beyond the device's limits or a missing CQ. */
    Qp createQp(QpInitAttr initAttr);

    /** {@code ibv_create_srq}. */
    Srq createSrq(SrqInitAttr initAttr);

    /** {@code ibv_create_ah}, for UD sends. */
    Ah createAh(AhAttr attr);

    /** {@code ibv_dealloc_pd}. */
    @Override
    void close();
}
