package org.roce4j.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.EnumSet;
import java.util.List;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.roce4j.verbs.Cq;
import org.roce4j.verbs.Errno;
import org.roce4j.verbs.Mr;
import org.roce4j.verbs.Qp;
import org.roce4j.verbs.QpAttr;
import org.roce4j.verbs.QpAttrMask;
import org.roce4j.verbs.QpCap;
import org.roce4j.verbs.QpInitAttr;
import org.roce4j.verbs.QpState;
import org.roce4j.verbs.QpType;
import org.roce4j.verbs.RecvWr;
import org.roce4j.verbs.WcStatus;
import org.roce4j.verbs.WorkCompletion;

/**
 * The depths a device grants (libibverbs writes the granted {@code cap} back from {@code ibv_create_qp};
 * {@code cq->cqe} is the CQ's granted depth; IBTA 11.2.4.1: at least what was asked) and
 * {@code ibv_resize_cq} (rxe {@code rxe_cq_chk_attr}, {@code rxe_queue.c resize_finish}).
 */
@ExtendWith(Backend.Resolver.class)
class QueueCapacityTest {
    private static final int ASKED = 4;
    private final Backend backend;

    QueueCapacityTest(Backend backend) {
        this.backend = backend;
    }

    @Test
    @DisplayName("libibverbs ibv_create_qp: the cap written back is the granted one, what ibv_query_qp reports, at least what was asked")
    void createQpReportsTheGrantedCaps() throws Exception {
        try (Endpoint e = Endpoint.first(backend)) {
            Qp qp = e.track(e.pd.createQp(QpInitAttr.of(QpType.RC, e.cq, QpCap.of(ASKED, ASKED))));
            QpCap created = qp.initAttr().cap();
            QpCap queried = qp.query(EnumSet.of(QpAttrMask.CAP)).cap();
            assertThat(queried.maxSendWr()).as("ibv_query_qp max_send_wr").isGreaterThanOrEqualTo(ASKED);
            assertThat(queried.maxRecvWr()).as("ibv_query_qp max_recv_wr").isGreaterThanOrEqualTo(ASKED);
            Expect.outcome("max_send_wr/max_recv_wr written back by ibv_create_qp (ibv_query_qp: "
                            + queried.maxSendWr() + "/" + queried.maxRecvWr() + ")",
                    queried.maxSendWr() + "/" + queried.maxRecvWr(), created.maxSendWr() + "/" + created.maxRecvWr());
        }
    }

    @Test
    @DisplayName("libibverbs ibv_create_cq: cq->cqe is the granted depth, at least what was asked, and the CQ holds that many completions")
    void createCqReportsTheGrantedDepth() throws Exception {
        try (Endpoint e = Endpoint.first(backend)) {
            Cq cq = e.track(e.context.createCq(ASKED));
            int granted = cq.capacity();
            assertThat(granted).as("cq->cqe").isGreaterThanOrEqualTo(ASKED);
            flushReceivesInto(e, cq, granted);
            List<WorkCompletion> wcs = Completions.await(cq, granted, "completions held by a CQ of cqe " + granted);
            assertThat(wcs).extracting(WorkCompletion::status).containsOnly(WcStatus.WR_FLUSH_ERR);
        }
    }

    @Test
    @DisplayName("ibv_resize_cq: the CQ grows to at least cqe, cq->cqe reports the granted depth, and the completions it held are kept in order")
    void resizeCqKeepsCompletions() throws Exception {
        try (Endpoint e = Endpoint.first(backend)) {
            Cq cq = e.track(e.context.createCq(ASKED));
            Qp qp = flushReceivesInto(e, cq, 3);
            Completions.awaitHeldWithoutPolling();
            int granted = cq.resize(10);
            assertThat(granted).as("depth granted by ibv_resize_cq").isGreaterThanOrEqualTo(10)
                    .isEqualTo(cq.capacity());
            List<WorkCompletion> wcs = Completions.await(cq, 3, "completions after the resize");
            assertThat(wcs).extracting(WorkCompletion::wrId).containsExactly(100L, 101L, 102L);
            assertThat(wcs).extracting(WorkCompletion::qpNum).containsOnly(qp.qpNum());
            assertThat(cq.poll(8)).as("nothing more").isEmpty();
        }
    }

    @Test
    @DisplayName("rxe_cq_chk_attr: ibv_resize_cq below 1, above max_cqe or below the completions held is EINVAL and changes nothing")
    void resizeCqOutOfRangeIsEinval() throws Exception {
        try (Endpoint e = Endpoint.first(backend)) {
            Cq cq = e.track(e.context.createCq(ASKED));
            int depth = cq.capacity();
            int maxCqe = e.context.queryDevice().maxCqe();
            Expect.errno("ibv_resize_cq to 0", Errno.EINVAL, () -> cq.resize(0));
            Expect.errno("ibv_resize_cq to -1", Errno.EINVAL, () -> cq.resize(-1));
            Expect.errno("ibv_resize_cq to max_cqe + 1", Errno.EINVAL, () -> cq.resize(maxCqe + 1));
            flushReceivesInto(e, cq, 3);
            Completions.awaitHeldWithoutPolling();
            Expect.errno("ibv_resize_cq to 2 with 3 completions held", Errno.EINVAL, () -> cq.resize(2));
            assertThat(cq.capacity()).as("cq->cqe after the refusals").isEqualTo(depth);
            Expect.succeeds("ibv_resize_cq to 3 with 3 completions held", () -> cq.resize(3));
            assertThat(Completions.await(cq, 3, "completions after the resize")).extracting(WorkCompletion::wrId)
                    .containsExactly(100L, 101L, 102L);
        }
    }

    /** {@code n} receive completions in {@code cq}: receives posted to a QP in INIT, flushed by moving it to ERR. */
    private static Qp flushReceivesInto(Endpoint e, Cq cq, int n) {
        Qp qp = e.track(e.pd.createQp(new QpInitAttr(QpType.RC, e.cq, cq, null, QpCap.of(1, n), false)));
        QpPair.bringUp(org.roce4j.verbs.Mtu.MTU_1024, QpPair.remoteAccess()).init(qp);
        Mr mr = e.register(64);
        for (int i = 0; i < n; i++) {
            qp.postRecv(RecvWr.of(100 + i, mr, 0, 64));
        }
        qp.modify(new QpAttr().qpState(QpState.ERR));
        return qp;
    }
}
