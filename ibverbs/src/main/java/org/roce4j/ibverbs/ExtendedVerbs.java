package org.roce4j.ibverbs;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.lang.foreign.StructLayout;
import java.util.Set;
import java.util.function.BiFunction;

import org.roce4j.verbs.AdviseMrAdvice;
import org.roce4j.verbs.AdviseMrFlag;
import org.roce4j.verbs.DeviceCapFlagEx;
import org.roce4j.verbs.Errno;
import org.roce4j.verbs.OdpCaps;
import org.roce4j.verbs.ScatterGatherList;
import org.roce4j.verbs.SendOpsFlag;
import org.roce4j.verbs.VerbsException;

/**
 * The static-inline extended verbs of verbs.h that call through {@code struct verbs_context}:
 * {@code ibv_create_qp_ex} ({@code vctx->create_qp_ex}) and {@code ibv_query_device_ex}
 * ({@code vctx->query_device_ex}), {@code ibv_advise_mr} ({@code vctx->advise_mr}); EOPNOTSUPP where the context has no such op, as the inline functions say.
 */
@SuppressWarnings("restricted")   // this is the module that calls native code (FFM)
final class ExtendedVerbs {
    private static final Linker LINKER = Linker.nativeLinker();
    /** {@code struct ibv_qp *(*create_qp_ex)(struct ibv_context *, struct ibv_qp_init_attr_ex *)}. */
    private static final MethodHandle CREATE_QP_EX = LINKER.downcallHandle(
            FunctionDescriptor.of(ADDRESS, ADDRESS, ADDRESS), Linker.Option.captureCallState("errno"));
    /** {@code int (*query_device_ex)(struct ibv_context *, const struct ibv_query_device_ex_input *, attr, size_t)}. */
    private static final MethodHandle QUERY_DEVICE_EX = LINKER.downcallHandle(
            FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS, JAVA_LONG), Linker.Option.captureCallState("errno"));
    /** {@code IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS}. */
    private static final int COMP_MASK_PD_AND_SEND_OPS = 1 | (1 << 6);

    private ExtendedVerbs() {
    }

    /**
     * {@code ibv_create_qp_ex} from a filled {@code struct ibv_qp_init_attr_ex} whose common prefix (CQs, SRQ,
     * caps, type, sq_sig_all) is set: adds the PD and the send_ops_flags and calls the provider.
     */
    static MemorySegment createQpEx(IbvPd pd, MemorySegment attr, Set<SendOpsFlag> sendOps) {
        var l = ExtendedLayouts.IBV_QP_INIT_ATTR_EX;
        attr.set(JAVA_INT, Layouts.offset(l, "comp_mask"), COMP_MASK_PD_AND_SEND_OPS);
        attr.set(ADDRESS, Layouts.offset(l, "pd"), pd.pd);
        attr.set(JAVA_LONG, Layouts.offset(l, "send_ops_flags"), SendOpsFlag.bits(sendOps));
        MemorySegment fn = pd.context.verbsContextOp("create_qp_ex");
        if (fn.equals(MemorySegment.NULL)) {
            throw new VerbsException(Errno.EOPNOTSUPP, "ibv_create_qp_ex: the provider has no create_qp_ex");
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = arena.allocate(LibIbverbs.CALL_STATE);
            MemorySegment qp = (MemorySegment) CREATE_QP_EX.invokeExact(fn, state, pd.context.context, attr);
            if (qp.equals(MemorySegment.NULL)) {
                int errno = state.get(JAVA_INT, LibIbverbs.ERRNO);
                throw new VerbsException(Errno.of(errno == 0 ? Errno.ENOMEM.number() : errno),
                        "ibv_create_qp_ex failed (errno " + errno + ")");
            }
            return qp;
        } catch (VerbsException e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException("ibv_create_qp_ex: native call failed", t);
        }
    }

    /** {@code struct ibv_cq_ex *(*create_cq_ex)(struct ibv_context *, struct ibv_cq_init_attr_ex *)}. */
    private static final MethodHandle CREATE_CQ_EX = LINKER.downcallHandle(
            FunctionDescriptor.of(ADDRESS, ADDRESS, ADDRESS), Linker.Option.captureCallState("errno"));

    /** {@code ibv_create_cq_ex}: {@code vctx->create_cq_ex} with comp_mask 0 (no parent domain, no flags). */
    static MemorySegment createCqEx(IbvContext context, org.roce4j.verbs.CqInitAttrEx init, MemorySegment channel) {
        MemorySegment fn = context.verbsContextOp("create_cq_ex");
        if (fn.equals(MemorySegment.NULL)) {
            throw new VerbsException(Errno.EOPNOTSUPP, "ibv_create_cq_ex: the provider has no create_cq_ex");
        }
        var l = ExtendedLayouts.IBV_CQ_INIT_ATTR_EX;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment attr = arena.allocate(l);
            attr.set(JAVA_INT, Layouts.offset(l, "cqe"), init.cqe());
            attr.set(ADDRESS, Layouts.offset(l, "channel"), channel);
            attr.set(JAVA_INT, Layouts.offset(l, "comp_vector"), init.compVector());
            attr.set(JAVA_LONG, Layouts.offset(l, "wc_flags"), org.roce4j.verbs.CreateCqWcFlag.bits(init.wcFlags()));
            MemorySegment state = arena.allocate(LibIbverbs.CALL_STATE);
            MemorySegment cq = (MemorySegment) CREATE_CQ_EX.invokeExact(fn, state, context.context, attr);
            if (cq.equals(MemorySegment.NULL)) {
                int errno = state.get(JAVA_INT, LibIbverbs.ERRNO);
                throw new VerbsException(Errno.of(errno == 0 ? Errno.ENOMEM.number() : errno),
                        "ibv_create_cq_ex failed (errno " + errno + ")");
            }
            return cq;
        } catch (VerbsException e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException("ibv_create_cq_ex: native call failed", t);
        }
    }

    /** {@code ibv_qp_to_qp_ex}: the QP's {@code struct ibv_qp_ex}; a QP without one is a bug of ours (we created it). */
    static MemorySegment qpToQpEx(IbvContext context, MemorySegment qp) {
        try {
            MemorySegment qpEx = (MemorySegment) context.lib.qpToQpEx.invokeExact(qp);
            if (qpEx.equals(MemorySegment.NULL)) {
                throw new IllegalStateException("ibv_qp_to_qp_ex: a QP from ibv_create_qp_ex has no ibv_qp_ex");
            }
            return qpEx;
        } catch (RuntimeException e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException("ibv_qp_to_qp_ex: native call failed", t);
        }
    }

    /** {@code ibv_query_device_ex(ctx, NULL, &attr)}'s {@code device_cap_flags_ex}. */
    static Set<DeviceCapFlagEx> deviceCapFlagsEx(IbvContext context) {
        return queryDeviceEx(context, (l, attr) -> DeviceCapFlagEx.of(
                attr.get(JAVA_LONG, Layouts.offset(l, "device_cap_flags_ex"))));
    }

    /** {@code ibv_query_device_ex(ctx, NULL, &attr)}'s {@code odp_caps}, as the device reports it. */
    static OdpCaps odpCaps(IbvContext context) {
        return queryDeviceEx(context, (l, attr) -> new OdpCaps(
                OdpCaps.General.of(attr.get(JAVA_LONG, Layouts.offset(l, "odp_caps.general_caps"))),
                OdpCaps.Transport.of(attr.get(JAVA_INT, Layouts.offset(l, "odp_caps.per_transport_caps.rc_odp_caps"))),
                OdpCaps.Transport.of(attr.get(JAVA_INT, Layouts.offset(l, "odp_caps.per_transport_caps.uc_odp_caps"))),
                OdpCaps.Transport.of(attr.get(JAVA_INT, Layouts.offset(l, "odp_caps.per_transport_caps.ud_odp_caps")))));
    }

    /** Calls {@code vctx->query_device_ex} into a fresh {@code struct ibv_device_attr_ex} and reads from it. */
    private static <T> T queryDeviceEx(IbvContext context, BiFunction<StructLayout, MemorySegment, T> read) {
        MemorySegment fn = context.verbsContextOp("query_device_ex");
        if (fn.equals(MemorySegment.NULL)) {
            throw new VerbsException(Errno.EOPNOTSUPP, "ibv_query_device_ex: the provider has no query_device_ex");
        }
        var l = ExtendedLayouts.IBV_DEVICE_ATTR_EX;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = arena.allocate(LibIbverbs.CALL_STATE);
            MemorySegment attr = arena.allocate(l);
            int ret = (int) QUERY_DEVICE_EX.invokeExact(fn, state, context.context, MemorySegment.NULL, attr,
                    l.byteSize());
            if (ret != 0) {
                int errno = ret > 0 ? ret : state.get(JAVA_INT, LibIbverbs.ERRNO);
                throw new VerbsException(Errno.of(errno), "ibv_query_device_ex failed (errno " + errno + ")");
            }
            return read.apply(l, attr);
        } catch (VerbsException e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException("ibv_query_device_ex: native call failed", t);
        }
    }

    /** {@code int (*advise_mr)(struct ibv_pd *, enum ibv_advise_mr_advice, uint32_t flags, struct ibv_sge *, uint32_t)}. */
    private static final MethodHandle ADVISE_MR = LINKER.downcallHandle(
            FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT));

    /**
     * {@code ibv_advise_mr}, the inline of verbs.h: {@code vctx->advise_mr} (EOPNOTSUPP without it), whose
     * return value is the errno (rdma-core's dummy op and {@code ibv_cmd_advise_mr} return it, errno stays 0).
     */
    static void adviseMr(IbvPd pd, AdviseMrAdvice advice, Set<AdviseMrFlag> flags, ScatterGatherList sgl) {
        MemorySegment fn = pd.context.verbsContextOp("advise_mr");
        if (fn.equals(MemorySegment.NULL)) {
            throw new VerbsException(Errno.EOPNOTSUPP, "ibv_advise_mr: the provider has no advise_mr");
        }
        var l = Layouts.IBV_SGE;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment sges = arena.allocate(l, Math.max(1, sgl.count()));
            for (int i = 0; i < sgl.count(); i++) {
                MemorySegment sge = sges.asSlice(i * l.byteSize(), l.byteSize());
                sge.set(JAVA_LONG, Layouts.offset(l, "addr"), sgl.address(i));
                sge.set(JAVA_INT, Layouts.offset(l, "length"), sgl.length(i));
                sge.set(JAVA_INT, Layouts.offset(l, "lkey"), sgl.lkey(i));
            }
            int ret = (int) ADVISE_MR.invokeExact(fn, pd.pd, advice.value(), AdviseMrFlag.bits(flags), sges, sgl.count());
            if (ret != 0) {
                int errno = Math.abs(ret);
                throw new VerbsException(Errno.of(errno), "ibv_advise_mr failed (errno " + errno + ")");
            }
        } catch (VerbsException e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException("ibv_advise_mr: native call failed", t);
        }
    }
}
