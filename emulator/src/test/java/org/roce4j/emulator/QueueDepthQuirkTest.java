package org.roce4j.emulator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.foreign.Arena;
import java.util.EnumSet;
import java.util.Set;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.roce4j.verbs.AccessFlag;
import org.roce4j.verbs.BadWorkRequestException;
import org.roce4j.verbs.Context;
import org.roce4j.verbs.Cq;
import org.roce4j.verbs.Errno;
import org.roce4j.verbs.Mr;
import org.roce4j.verbs.Pd;
import org.roce4j.verbs.Qp;
import org.roce4j.verbs.QpAttrMask;
import org.roce4j.verbs.QpBringUp;
import org.roce4j.verbs.QpCap;
import org.roce4j.verbs.QpInitAttr;
import org.roce4j.verbs.QpType;
import org.roce4j.verbs.RecvWr;
import org.roce4j.verbs.Srq;
import org.roce4j.verbs.SrqAttr;
import org.roce4j.verbs.SrqAttrMask;
import org.roce4j.verbs.SrqInitAttr;

/**
 * The queue depths a device grants, per profile, as measured on rxe0 by
 * {@code ibverbs/src/test/c/rxe-probe-capacities.c} on kernels 6.1 and 6.12.
 */
class QueueDepthQuirkTest {
    private static final int ASKED = 4;

    /** What one device grants: create's cap, query's cap, the receives it takes, CQ and SRQ depths. */
    private record Depths(int createdRecvWr, int createdSendWr, int queriedRecvWr, int queriedSendWr,
                          int recvsAccepted, int cqe, int cqeAfterResizeTo10, int srqMaxWr, int srqPostsAccepted,
                          int srqMaxWrAfterResizeTo20) {
    }

    private static Depths measure(DeviceProfile profile) {
        try (Context ctx = ProfiledDevice.open(profile); Arena arena = Arena.ofShared()) {
            Pd pd = ctx.allocPd();
            Cq big = ctx.createCq(256);
            Mr mr = pd.regMr(arena.allocate(64), Set.of(AccessFlag.LOCAL_WRITE));
            Qp qp = pd.createQp(QpInitAttr.of(QpType.RC, big, QpCap.of(ASKED, ASKED)));
            QpBringUp.pingpong().init(qp);
            int recvs = fill(() -> qp.postRecv(RecvWr.of(0, mr, 0, 64)));
            QpCap queried = qp.query(EnumSet.of(QpAttrMask.CAP)).cap();
            Cq small = ctx.createCq(ASKED);
            int cqe = small.capacity();
            int resized = small.resize(10);
            assertThat(small.capacity()).isEqualTo(resized);
            Srq srq = pd.createSrq(new SrqInitAttr(ASKED, 1, 0));
            int srqMaxWr = srq.query().maxWr();
            int srqPosts = fill(() -> srq.postRecv(RecvWr.of(0, mr, 0, 64)));
            srq.modify(new SrqAttr(20, 1, 0), EnumSet.of(SrqAttrMask.MAX_WR));
            Depths depths = new Depths(qp.initAttr().cap().maxRecvWr(), qp.initAttr().cap().maxSendWr(),
                    queried.maxRecvWr(), queried.maxSendWr(), recvs, cqe, resized, srqMaxWr, srqPosts,
                    srq.query().maxWr());
            qp.close();
            srq.close();
            mr.close();
            small.close();
            big.close();
            pd.close();
            return depths;
        }
    }

    /** Posts until the queue is full (ENOMEM); returns how many were accepted. */
    private static int fill(Runnable post) {
        for (int posted = 0; posted < 1000; posted++) {
            try {
                post.run();
            } catch (BadWorkRequestException e) {
                assertThat(e.errno()).isEqualTo(Errno.ENOMEM);
                return posted;
            }
        }
        throw new AssertionError("the queue never filled");
    }

    @Test
    @DisplayName("linux profile (IBTA 11.2.4.1): every queue holds exactly what was asked, and create and query say so")
    void linuxGrantsExactlyWhatIsAsked() {
        assertThat(measure(DeviceProfile.LINUX)).isEqualTo(new Depths(4, 4, 4, 4, 4, 4, 10, 4, 4, 20));
    }

    @Test
    @DisplayName("rxe-6.12 (rxe_queue.c rxe_queue_init): queues hold 2^k - 1, create, query and cq->cqe report it (4 -> 7, 10 -> 15, 20 -> 31)")
    void rxe612RoundsAndReportsTheRoundedDepth() {
        assertThat(measure(DeviceProfile.RXE_6_12)).isEqualTo(new Depths(7, 7, 7, 7, 7, 7, 15, 7, 7, 31));
    }

    @Test
    @DisplayName("rxe-6.1: queues hold 2^k - 1 but ibv_create_qp writes back the depth asked (4); ibv_query_qp reports 7")
    void rxe61ReportsTheRequestedDepthAtCreate() {
        assertThat(measure(DeviceProfile.RXE_6_1)).isEqualTo(new Depths(4, 4, 7, 7, 7, 7, 15, 7, 7, 31));
    }

    @Test
    @DisplayName("rxe_qp_init_req: SGEs and inline data share one WQE size on the rxe profiles (1 SGE, no inline -> 16 bytes inline; 100 bytes inline -> 6 SGEs); linux grants them as asked")
    void rxeSendSgesAndInlineShareOneWqeSize() {
        for (DeviceProfile profile : DeviceProfile.values()) {
            try (Context ctx = ProfiledDevice.open(profile)) {
                Pd pd = ctx.allocPd();
                Cq cq = ctx.createCq(16);
                Qp small = pd.createQp(QpInitAttr.of(QpType.RC, cq, new QpCap(4, 4, 1, 1, 0)));
                Qp inline = pd.createQp(QpInitAttr.of(QpType.RC, cq, new QpCap(4, 4, 1, 1, 100)));
                boolean rxe = profile != DeviceProfile.LINUX;
                for (QpCap cap : new QpCap[] {small.initAttr().cap(), small.query(EnumSet.of(QpAttrMask.CAP)).cap()}) {
                    assertThat(cap.maxSendSge()).as("%s", profile).isEqualTo(1);
                    assertThat(cap.maxInlineData()).as("%s", profile).isEqualTo(rxe ? 16 : 0);
                }
                QpCap inlineCap = inline.query(EnumSet.of(QpAttrMask.CAP)).cap();
                assertThat(inlineCap.maxSendSge()).as("%s", profile).isEqualTo(rxe ? 6 : 1);
                assertThat(inlineCap.maxInlineData()).as("%s", profile).isEqualTo(100);
                small.close();
                inline.close();
                cq.close();
                pd.close();
            }
        }
    }

    @Test
    @DisplayName("rxe_queue_init: roundup_pow_of_two(n + 1) - 1 for 1, 3, 4, 7, 8, 100 (probe) and the largest CQ")
    void roundingMatchesTheProbe() {
        try (Context ctx = ProfiledDevice.open(DeviceProfile.RXE_6_12)) {
            int[][] askedAndHeld = {{1, 1}, {3, 3}, {4, 7}, {7, 7}, {8, 15}, {100, 127}, {32767, 32767}};
            for (int[] pair : askedAndHeld) {
                Cq cq = ctx.createCq(pair[0]);
                assertThat(cq.capacity()).as("cqe %d", pair[0]).isEqualTo(pair[1]);
                cq.close();
            }
            assertThatThrownBy(() -> ctx.createCq(32768)).hasMessageContaining("EINVAL");
        }
    }
}
