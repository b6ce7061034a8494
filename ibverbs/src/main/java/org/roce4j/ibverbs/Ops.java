package org.roce4j.ibverbs;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.invoke.MethodHandle;

/**
 * The static-inline verbs of {@code verbs.h} ({@code ibv_post_send}, {@code ibv_post_recv},
 * {@code ibv_post_srq_recv}, {@code ibv_poll_cq}, {@code ibv_req_notify_cq}): each is one call through
 * a function pointer of {@code context->ops}, so here each is a downcall handle taking the pointer as
 * its first argument. They return an errno (posts, notify) or a count (poll) and never block, so they
 * are linked as critical calls: no thread-state transition, the cheapest downcall there is.
 */
@SuppressWarnings("restricted")   // this is the module that calls native code (FFM)
final class Ops {
    private Ops() {
    }

    private static final Linker LINKER = Linker.nativeLinker();

    /** {@code int (*post_send)(struct ibv_qp *, struct ibv_send_wr *, struct ibv_send_wr **)}; also post_recv and post_srq_recv. */
    static final MethodHandle POST = LINKER.downcallHandle(
            FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS), Linker.Option.critical(false));

    /** {@code int (*poll_cq)(struct ibv_cq *, int num_entries, struct ibv_wc *)}. */
    static final MethodHandle POLL_CQ = LINKER.downcallHandle(
            FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, ADDRESS), Linker.Option.critical(false));

    /** {@code struct ibv_mw *(*alloc_mw)(struct ibv_pd *, enum ibv_mw_type)}: the body of the inline {@code ibv_alloc_mw}. */
    static final MethodHandle ALLOC_MW = LINKER.downcallHandle(
            FunctionDescriptor.of(ADDRESS, ADDRESS, JAVA_INT), Linker.Option.captureCallState("errno"));

    /** {@code int (*bind_mw)(struct ibv_qp *, struct ibv_mw *, struct ibv_mw_bind *)}: of {@code ibv_bind_mw}. */
    static final MethodHandle BIND_MW = LINKER.downcallHandle(
            FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS), Linker.Option.captureCallState("errno"));

    /** {@code int (*dealloc_mw)(struct ibv_mw *)}: of {@code ibv_dealloc_mw}. */
    static final MethodHandle DEALLOC_MW = LINKER.downcallHandle(
            FunctionDescriptor.of(JAVA_INT, ADDRESS), Linker.Option.captureCallState("errno"));

    /** {@code int (*req_notify_cq)(struct ibv_cq *, int solicited_only)}. */
    static final MethodHandle REQ_NOTIFY_CQ = LINKER.downcallHandle(
            FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT), Linker.Option.critical(false));
}
