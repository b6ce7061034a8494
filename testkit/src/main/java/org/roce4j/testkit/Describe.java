package org.roce4j.testkit;

import java.util.Locale;

import org.roce4j.verbs.Ah;
import org.roce4j.verbs.CompChannel;
import org.roce4j.verbs.Context;
import org.roce4j.verbs.Cq;
import org.roce4j.verbs.Mr;
import org.roce4j.verbs.Pd;
import org.roce4j.verbs.Qp;
import org.roce4j.verbs.Srq;
import org.roce4j.verbs.WcOpcode;
import org.roce4j.verbs.WcStatus;

/** How the testkit names verbs objects and values in its messages: libibverbs' names. */
final class Describe {
    private Describe() {
    }

    /** A one-line name for a verbs object, e.g. {@code QP 0x000011 (RC) on rxe0}. */
    static String resource(Object resource) {
        return switch (resource) {
            case Qp qp -> String.format(Locale.ROOT, "QP 0x%06x (%s) on %s", qp.qpNum(), qp.type(), device(qp.pd()));
            case Mr mr -> String.format(Locale.ROOT, "MR lkey=0x%08x rkey=0x%08x addr=0x%x length=%d on %s",
                    mr.lkey(), mr.rkey(), mr.address(), mr.length(), device(mr.pd()));
            case Cq cq -> "CQ of " + cq.capacity() + " entries on " + cq.context().device().name();
            case Srq srq -> "SRQ on " + device(srq.pd());
            case Ah ah -> "AH to " + ah.attr().dgid() + " on " + device(ah.pd());
            case Pd pd -> "PD on " + device(pd);
            case CompChannel channel -> "completion channel on " + channel.context().device().name();
            case Context context -> "context of " + context.device().name();
            default -> resource.toString();
        };
    }

    /** {@code IBV_WC_RETRY_EXC_ERR (transport retry counter exceeded)}: the C name and ibv_wc_status_str. */
    static String status(WcStatus status) {
        return "IBV_WC_" + status.name() + " (" + status.describe() + ")";
    }

    /** {@code IBV_WC_RECV}. */
    static String opcode(WcOpcode opcode) {
        return "IBV_WC_" + opcode.name();
    }

    private static String device(Pd pd) {
        return pd.context().device().name();
    }
}
