package org.roce4j.emulator.verbs;

import org.roce4j.verbs.QpState;
import org.roce4j.verbs.QpType;
import org.roce4j.verbs.RecvWr;
import org.roce4j.verbs.SendFlag;
import org.roce4j.verbs.SendWr;
import org.roce4j.verbs.WrOpcode;

/**
 * The synchronous checks of {@code ibv_post_send} and {@code ibv_post_recv} (rxe's
 * {@code validate_send_wr} and post paths): what makes a work request invalid (EINVAL) before it is
 * queued. Queue-full (ENOMEM) is the caller's. Each returns why, or null when the request is fine.
 */
final class WorkRequestChecks {
    private WorkRequestChecks() {
    }

    /** Why a send work request cannot be posted (EINVAL), or null: the checks of rxe's post path. */
    static String sendProblem(EmulatedQp qp, SendWr wr) {
        String queue = sendQueueProblem(qp);
        if (queue != null) {
            return queue;
        }
        // An opcode the QP type does not allow (WrOpcode.isAllowedOn) is not refused here: libibverbs and its
        // providers post it, and the RNIC fails it (Requester: LOC_QP_OP_ERR, the QP to ERR).
        WrOpcode opcode = wr.opcode();
        int sges = wr.sgList().count();
        if (sges > qp.sq.maxSge) { // the granted max_send_sge, kept by the queue (one object less per post)
            return sges + " SGEs, the QP takes " + qp.sq.maxSge;
        }
        long length = wr.sgList().totalLength();
        if (length > DeviceLimits.MAX_MESSAGE_LENGTH) {
            return "message of " + length + " bytes is above 2^31";
        }
        if (wr.has(SendFlag.INLINE)) {
            if (opcode == WrOpcode.RDMA_READ || opcode.isAtomic()) {
                return "INLINE makes no sense for " + opcode;
            }
            if (length > qp.sq.maxInline) {
                return length + " bytes of inline data, the QP takes " + qp.sq.maxInline;
            }
            // libibverbs reads inline data from any address: from the JVM a crash for a bad one (SIGSEGV),
            // a leak of memory never offered to the device for a live one. Issue 13: registered memory only.
            String outside = qp.pd.context.registeredMemory.inlineProblem(wr.sgList());
            if (outside != null) {
                return outside;
            }
        }
        if ((opcode.isAtomic() || opcode == WrOpcode.ATOMIC_WRITE) && length != 8) {
            // ATOMIC WRITE's data is its 8 bytes (IBTA 1.5 9.4.7; rxe's wr_atomic_write sets dma.length = 8).
            return "an atomic operation carries exactly 8 bytes, not " + length;
        }
        if (opcode == WrOpcode.BIND_MW) {
            String problem = bindProblem(qp, wr);
            if (problem != null) {
                return problem;
            }
        }
        return udProblem(qp, wr);
    }

    /**
     * Why a batch built by the {@code ibv_wr_*} builder cannot be posted at {@code ibv_wr_complete} (EINVAL), or
     * null. rxe's builder runs none of validate_send_wr's checks (what it refuses, ENOSPC, the builder recorded
     * already); the kernel's post_send refuses a QP not yet in RTS, and a UD request needs its address handle.
     */
    static String builtProblem(EmulatedQp qp, SendWr wr) {
        String queue = sendQueueProblem(qp);
        return queue != null ? queue : udProblem(qp, wr);
    }

    private static String sendQueueProblem(EmulatedQp qp) {
        if (qp.closed) {
            return "the QP was closed";
        }
        if (qp.state == QpState.RESET || qp.state == QpState.INIT || qp.state == QpState.RTR) {
            return "the QP is in " + qp.state + "; sends are posted in RTS or later (IBTA 10.3.1)";
        }
        return null;
    }

    private static String udProblem(EmulatedQp qp, SendWr wr) {
        if (qp.type == QpType.UD) {
            if (!(wr.ah() instanceof EmulatedAh ah) || ah.closed || ah.pd != qp.pd) {
                return "a UD send needs an open address handle of the QP's protection domain";
            }
        }
        return null;
    }

    /**
     * rdma-core's rxe provider validate_send_wr: a BIND_MW has no SGE and no immediate, on RC or UC only (so it
     * is refused at post on UD, where other opcodes a QP type lacks are posted and fail later); and a window and
     * region the emulator can resolve (the provider would dereference a null region).
     */
    private static String bindProblem(EmulatedQp qp, SendWr wr) {
        if (wr.sgList().count() != 0 || wr.immData() != 0) {
            return "a BIND_MW carries no SGE and no immediate data";
        }
        if (qp.type != QpType.RC && qp.type != QpType.UC) {
            return "BIND_MW is posted on RC and UC QPs only";
        }
        if (!(wr.mw() instanceof EmulatedMw mw) || mw.closed || mw.pd.context != qp.pd.context) {
            return "a BIND_MW needs an open memory window of the QP's context";
        }
        if (wr.bindInfo() == null || !(wr.bindInfo().mr() instanceof EmulatedMr)) {
            return "a BIND_MW needs a memory region of the QP's context";
        }
        return null;
    }

    static String receiveProblem(EmulatedQp qp, RecvWr wr) {
        if (qp.closed) {
            return "the QP was closed";
        }
        if (qp.state == QpState.RESET) {
            return "the QP is in RESET (IBTA 10.3.1: receives are posted from INIT on)";
        }
        if (qp.srq != null) {
            return "the QP takes its receive WQEs from an SRQ";
        }
        int max = qp.initAttr().cap().maxRecvSge();
        return wr.sgList().count() > max ? wr.sgList().count() + " SGEs, the QP takes " + max : null;
    }
}
