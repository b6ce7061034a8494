package org.roce4j.verbs;

import java.util.List;
import java.util.Set;

/**
 * A shared receive queue: {@code struct ibv_srq}. When the number of posted WQEs drops below an
 * armed limit, the context raises {@link AsyncEventType#SRQ_LIMIT_REACHED} once and disarms
 * (IBTA 10.2.9.2).
 */
public interface Srq extends AutoCloseable {
    /** {@return the protection domain the SRQ belongs to} */
    Pd pd();

    /**
     * {@code ibv_post_srq_recv}; ENOMEM when full, EINVAL for too many SGEs.
     *
     * @param wr the receive; copied, so it may be reused at once
     */
    void postRecv(RecvWr wr);

    /**
     * {@code ibv_post_srq_recv} of a chain, in order; stops at the first bad one.
     *
     * @param wrs the receives
     */
    void postRecv(List<RecvWr> wrs);

    /**
     * {@code ibv_modify_srq}: {@link SrqAttrMask#MAX_WR} resizes the SRQ, keeping the WQEs posted;
     * {@link SrqAttrMask#LIMIT} arms the limit. EINVAL for a limit above the SRQ's current depth, and for a
     * depth of 0, above the device's {@code max_srq_wr}, below the armed limit or below the WQEs posted.
     *
     * @param attr the values
     * @param mask which of them to apply
     */
    void modify(SrqAttr attr, Set<SrqAttrMask> mask);

    /** {@return the SRQ's size and limit: {@code ibv_query_srq}} */
    SrqAttr query();

    /** {@code ibv_destroy_srq}; EBUSY while a QP uses it. */
    @Override
    void close();
}
