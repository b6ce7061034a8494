package org.roce4j.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.EnumSet;
import java.util.Set;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.roce4j.verbs.BadWorkRequestException;
import org.roce4j.verbs.Errno;
import org.roce4j.verbs.Mr;
import org.roce4j.verbs.Mtu;
import org.roce4j.verbs.RecvWr;
import org.roce4j.verbs.Srq;
import org.roce4j.verbs.SrqAttr;
import org.roce4j.verbs.SrqAttrMask;
import org.roce4j.verbs.SrqInitAttr;

/**
 * Resizing a shared receive queue: {@code ibv_modify_srq} with {@code IBV_SRQ_MAX_WR} (IBTA 11.2.3.3 Modify
 * SRQ; rxe {@code rxe_srq.c rxe_srq_chk_attr}, {@code rxe_queue.c resize_finish}).
 */
@ExtendWith(Backend.Resolver.class)
class SrqResizeTest {
    private static final Set<SrqAttrMask> RESIZE = EnumSet.of(SrqAttrMask.MAX_WR);
    private final Backend backend;

    SrqResizeTest(Backend backend) {
        this.backend = backend;
    }

    @Test
    @DisplayName("ibv_modify_srq IBV_SRQ_MAX_WR: the SRQ grows to at least max_wr, ibv_query_srq reports it, the WQEs posted before are kept and consumed in order")
    void resizeKeepsPostedWqes() throws Exception {
        try (Endpoint a = Endpoint.first(backend); Endpoint b = Endpoint.second(backend)) {
            Srq srq = b.track(b.pd.createSrq(new SrqInitAttr(4, 1, 0)));
            Mr dst = b.register(64);
            int depth = srq.query().maxWr();
            int before = filled(srq, dst, 10);
            assertThat(before).as("WQEs the SRQ takes before the resize").isEqualTo(depth);
            Expect.succeeds("ibv_modify_srq max_wr 20 holding " + depth + " WQEs",
                    () -> srq.modify(new SrqAttr(20, 1, 0), RESIZE));
            int resized = srq.query().maxWr();
            assertThat(resized).as("ibv_query_srq max_wr after the resize").isGreaterThanOrEqualTo(20);
            assertThat(filled(srq, dst, 10 + before)).as("WQEs the SRQ takes after the resize").isEqualTo(resized - before);

            QpPair pair = QpPair.connect(a, b, Mtu.MTU_1024, QpPair.remoteAccess(), e -> SrqTest.attr(e, b, srq));
            Mr src = a.register(64);
            for (int i = 0; i < before + 1; i++) {
                SrqTest.sendOne(pair, src, a, b, 10 + i);   // the old WQEs first, in order, then the first new one
            }
        }
    }

    @Test
    @DisplayName("rxe_srq_chk_attr: resizing to 0, above max_srq_wr, below the armed limit or below the WQEs posted is EINVAL and changes nothing; a limit above the current max_wr is EINVAL")
    void resizeOutOfRangeIsEinval() throws Exception {
        try (Endpoint e = Endpoint.first(backend)) {
            Srq srq = e.track(e.pd.createSrq(new SrqInitAttr(16, 1, 0)));
            Mr mr = e.register(64);
            int depth = srq.query().maxWr();
            int maxSrqWr = e.context.queryDevice().maxSrqWr();
            Expect.errno("ibv_modify_srq max_wr 0", Errno.EINVAL, () -> srq.modify(new SrqAttr(0, 1, 0), RESIZE));
            Expect.errno("ibv_modify_srq max_wr max_srq_wr + 1", Errno.EINVAL,
                    () -> srq.modify(new SrqAttr(maxSrqWr + 1, 1, 0), RESIZE));
            Expect.errno("ibv_modify_srq srq_limit above max_wr", Errno.EINVAL,
                    () -> srq.modify(new SrqAttr(0, 1, depth + 1), EnumSet.of(SrqAttrMask.LIMIT)));
            srq.modify(new SrqAttr(0, 1, 8), EnumSet.of(SrqAttrMask.LIMIT));
            Expect.errno("ibv_modify_srq max_wr 7 below the armed limit 8", Errno.EINVAL,
                    () -> srq.modify(new SrqAttr(7, 1, 0), RESIZE));
            srq.modify(new SrqAttr(0, 1, 0), EnumSet.of(SrqAttrMask.LIMIT));
            int posted = filled(srq, mr, 0);
            Expect.errno("ibv_modify_srq max_wr 2 holding " + posted + " WQEs", Errno.EINVAL,
                    () -> srq.modify(new SrqAttr(2, 1, 0), RESIZE));
            assertThat(srq.query()).as("ibv_query_srq after the refusals").isEqualTo(new SrqAttr(depth, 1, 0));
        }
    }

    /** Posts receives (wr_ids from {@code firstWrId}) until the SRQ is full (ENOMEM); returns how many it took. */
    private static int filled(Srq srq, Mr mr, int firstWrId) {
        for (int posted = 0; posted < 1 << 16; posted++) {
            try {
                srq.postRecv(RecvWr.of(firstWrId + posted, mr, 0, 64));
            } catch (BadWorkRequestException full) {
                Expect.outcome("ibv_post_srq_recv on a full SRQ", Errno.ENOMEM, full.errno());
                return posted;
            }
        }
        throw new AssertionError("the SRQ never filled");
    }
}
