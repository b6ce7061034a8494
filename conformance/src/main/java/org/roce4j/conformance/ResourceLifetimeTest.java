package org.roce4j.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.Arena;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.roce4j.verbs.Ah;
import org.roce4j.verbs.AhAttr;
import org.roce4j.verbs.CompChannel;
import org.roce4j.verbs.Context;
import org.roce4j.verbs.Cq;
import org.roce4j.verbs.Errno;
import org.roce4j.verbs.Mr;
import org.roce4j.verbs.Pd;
import org.roce4j.verbs.Qp;
import org.roce4j.verbs.QpCap;
import org.roce4j.verbs.QpInitAttr;
import org.roce4j.verbs.QpType;
import org.roce4j.verbs.Srq;
import org.roce4j.verbs.SrqInitAttr;

/**
 * A parent cannot be destroyed while children use it: the kernel's uverbs use counts, which make
 * ibv_dealloc_pd, ibv_destroy_cq, ibv_destroy_srq and ibv_destroy_comp_channel return EBUSY. After the
 * child goes, the parent closes. Each failed close must leave the parent fully usable.
 */
@ExtendWith(Backend.Resolver.class)
class ResourceLifetimeTest {
    private final Backend backend;

    ResourceLifetimeTest(Backend backend) {
        this.backend = backend;
    }

    @Test
    @DisplayName("ibv_close_device: EBUSY while a PD is allocated")
    void contextBusyWithPd() {
        Context context = backend.firstDevice().open();
        Pd pd = context.allocPd();
        Expect.errno(Errno.EBUSY, context::close);
        assertThat(context.queryPort(Endpoint.PORT)).as("the context still works").isNotNull();
        pd.close();
        context.close();
    }

    @Test
    @DisplayName("ibv_close_device: EBUSY while a CQ or a completion channel exists")
    void contextBusyWithCqAndChannel() {
        Context context = backend.firstDevice().open();
        CompChannel channel = context.createCompChannel();
        Cq cq = context.createCq(4);
        Expect.errno(Errno.EBUSY, context::close);
        cq.close();
        Expect.errno(Errno.EBUSY, context::close);
        channel.close();
        context.close();
    }

    @Test
    @DisplayName("ibv_dealloc_pd: EBUSY while an MR is registered in it; fine after ibv_dereg_mr")
    void pdBusyWithMr() {
        try (Context context = backend.firstDevice().open(); Arena arena = Arena.ofConfined()) {
            Pd pd = context.allocPd();
            Mr mr = pd.regMr(arena.allocate(64, 8), Endpoint.ALL_ACCESS);
            Expect.errno(Errno.EBUSY, pd::close);
            assertThat(mr.pd()).isSameAs(pd);
            mr.close();
            pd.close();
        }
    }

    @Test
    @DisplayName("ibv_dealloc_pd: EBUSY while a QP, an SRQ or an AH belongs to it")
    void pdBusyWithQpSrqAh() {
        try (Context context = backend.firstDevice().open(); Cq cq = context.createCq(8)) {
            Pd pd = context.allocPd();
            Qp qp = pd.createQp(QpInitAttr.of(QpType.RC, cq, QpCap.of(4, 4)));
            Expect.errno(Errno.EBUSY, pd::close);
            qp.close();
            Srq srq = pd.createSrq(new SrqInitAttr(4, 1, 0));
            Expect.errno(Errno.EBUSY, pd::close);
            srq.close();
            Ah ah = pd.createAh(AhAttr.of(context.queryGid(Endpoint.PORT, Endpoint.GID_INDEX), Endpoint.GID_INDEX,
                    Endpoint.PORT));
            Expect.errno(Errno.EBUSY, pd::close);
            ah.close();
            pd.close();
        }
    }

    @Test
    @DisplayName("ibv_destroy_cq: EBUSY while a QP uses it as send or receive CQ")
    void cqBusyWithQp() {
        try (Context context = backend.firstDevice().open(); Pd pd = context.allocPd()) {
            Cq sendCq = context.createCq(8);
            Cq recvCq = context.createCq(8);
            Qp qp = pd.createQp(QpInitAttr.of(QpType.UD, sendCq, QpCap.of(4, 4)).withCqs(sendCq, recvCq));
            Expect.errno(Errno.EBUSY, sendCq::close);
            Expect.errno(Errno.EBUSY, recvCq::close);
            qp.close();
            sendCq.close();
            recvCq.close();
        }
    }

    @Test
    @DisplayName("ibv_destroy_comp_channel: EBUSY while a CQ reports to it")
    void channelBusyWithCq() {
        try (Context context = backend.firstDevice().open()) {
            CompChannel channel = context.createCompChannel();
            Cq cq = context.createCq(4, channel, 0);
            assertThat(cq.channel()).isSameAs(channel);
            Expect.errno(Errno.EBUSY, channel::close);
            cq.close();
            channel.close();
        }
    }

    @Test
    @DisplayName("ibv_destroy_srq: EBUSY while a QP receives through it")
    void srqBusyWithQp() {
        try (Context context = backend.firstDevice().open(); Pd pd = context.allocPd(); Cq cq = context.createCq(8)) {
            Srq srq = pd.createSrq(new SrqInitAttr(4, 1, 0));
            Qp qp = pd.createQp(QpInitAttr.of(QpType.RC, cq, QpCap.of(4, 0)).withSrq(srq));
            assertThat(qp.initAttr().srq()).isSameAs(srq);
            Expect.errno(Errno.EBUSY, srq::close);
            qp.close();
            srq.close();
        }
    }

    @Test
    @DisplayName("ibv_create_qp: caps beyond max_qp_wr / max_sge are EINVAL")
    void createQpBeyondLimits() {
        try (Context context = backend.firstDevice().open(); Pd pd = context.allocPd(); Cq cq = context.createCq(8)) {
            var attr = context.queryDevice();
            Expect.errno(Errno.EINVAL, () -> pd.createQp(QpInitAttr.of(QpType.RC, cq, QpCap.of(attr.maxQpWr() + 1, 1))));
            Expect.errno(Errno.EINVAL, () -> pd.createQp(QpInitAttr.of(QpType.RC, cq,
                    new QpCap(1, 1, attr.maxSge() + 1, 1, 0))));
            Expect.errno(Errno.EINVAL, () -> pd.createQp(new QpInitAttr(QpType.RC, null, null, null, QpCap.of(1, 1), false)));
        }
    }

    @Test
    @DisplayName("ibv_create_qp: a new QP is in RESET with a 24-bit QPN; it reports caps at least as asked")
    void createdQpIsInReset() {
        try (Context context = backend.firstDevice().open(); Pd pd = context.allocPd(); Cq cq = context.createCq(8);
             Qp qp = pd.createQp(QpInitAttr.of(QpType.RC, cq, QpCap.of(5, 3)))) {
            assertThat(qp.state()).isEqualTo(org.roce4j.verbs.QpState.RESET);
            assertThat(qp.qpNum()).isBetween(2, 0xFFFFFF);
            assertThat(qp.type()).isEqualTo(QpType.RC);
            assertThat(qp.pd()).isSameAs(pd);
            assertThat(qp.initAttr().cap().maxSendWr()).isGreaterThanOrEqualTo(5);
            assertThat(qp.initAttr().cap().maxRecvWr()).isGreaterThanOrEqualTo(3);
            assertThat(qp.initAttr().cap().maxSendSge()).isGreaterThanOrEqualTo(1);
        }
    }
}
