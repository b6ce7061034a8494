package org.roce4j.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.EnumSet;
import java.util.Set;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.roce4j.verbs.AccessFlag;
import org.roce4j.verbs.AdviseMrAdvice;
import org.roce4j.verbs.AdviseMrFlag;
import org.roce4j.verbs.Errno;
import org.roce4j.verbs.Mr;
import org.roce4j.verbs.Mtu;
import org.roce4j.verbs.OdpCaps;
import org.roce4j.verbs.QpType;
import org.roce4j.verbs.RecvWr;
import org.roce4j.verbs.ScatterGatherList;
import org.roce4j.verbs.SendWr;
import org.roce4j.verbs.WcOpcode;

/**
 * On-demand paging: {@code IBV_ACCESS_ON_DEMAND} registration, each operation an ODP region serves on RC
 * (asked only where the device's {@code odp_caps} name it), {@code ibv_advise_mr} prefetch and its errors
 * (rxe_odp.c {@code rxe_ib_advise_mr}, kernel 6.16), implicit ODP, and what a device without ODP answers
 * (rxe before kernel 6.14: {@code ib_check_mr_access} and the missing {@code advise_mr}). Whether the device
 * has ODP is what {@code ibv_query_device_ex} reports, never its name.
 */
@ExtendWith(Backend.Resolver.class)
class OdpTest {
    private static final Set<AccessFlag> ODP_ALL_ACCESS = EnumSet.of(AccessFlag.LOCAL_WRITE, AccessFlag.REMOTE_WRITE,
            AccessFlag.REMOTE_READ, AccessFlag.REMOTE_ATOMIC, AccessFlag.ON_DEMAND);
    private static final int SIZE = 8192;

    private final Backend backend;

    OdpTest(Backend backend) {
        this.backend = backend;
    }

    @Test
    @DisplayName("ibv_query_device_ex odp_caps: per-transport ODP operations only on a device with IBV_ODP_SUPPORT, "
            + "implicit ODP only with it")
    void odpCapsNameOperationsOnlyWhereOdpExists() throws Exception {
        try (Endpoint a = Endpoint.first(backend)) {
            OdpCaps caps = a.context.queryOdpCaps();
            if (!caps.supported()) {
                assertThat(caps).as("odp_caps of a device without IBV_ODP_SUPPORT").isEqualTo(OdpCaps.NONE);
            } else {
                assertThat(caps.rcCaps()).as("rc_odp_caps of a device with ODP").isNotEmpty();
            }
        }
    }

    @Test
    @DisplayName("IBV_ACCESS_ON_DEMAND: a region with its rights and keys on a device with ODP; EOPNOTSUPP without "
            + "(ib_check_mr_access)")
    void onDemandRegistrationFollowsTheCaps() throws Exception {
        try (Endpoint a = Endpoint.first(backend)) {
            if (!a.context.queryOdpCaps().supported()) {
                Expect.errno(Errno.EOPNOTSUPP, () -> a.register(SIZE, ODP_ALL_ACCESS));
                return;
            }
            Mr mr = a.register(SIZE, ODP_ALL_ACCESS);
            assertThat(mr.access()).isEqualTo(ODP_ALL_ACCESS);
            assertThat(mr.length()).isEqualTo(SIZE);
            assertThat(mr.rkey()).as("rkey of a region with remote rights").isEqualTo(mr.lkey());
        }
    }

    @Test
    @DisplayName("ibv_advise_mr PREFETCH: done on a device with ODP; EOPNOTSUPP without (no advise_mr op)")
    void adviseMrFollowsTheCaps() throws Exception {
        try (Endpoint a = Endpoint.first(backend)) {
            if (!a.context.queryOdpCaps().supported()) {
                Mr mr = a.register(SIZE, EnumSet.of(AccessFlag.LOCAL_WRITE));
                Expect.errno(Errno.EOPNOTSUPP, () -> a.pd.adviseMr(AdviseMrAdvice.PREFETCH, Set.of(),
                        new ScatterGatherList().add(mr, 0, 4096)));
                return;
            }
            Mr mr = a.register(SIZE, ODP_ALL_ACCESS);
            Expect.succeeds("advise PREFETCH", () -> a.pd.adviseMr(AdviseMrAdvice.PREFETCH, Set.of(),
                    new ScatterGatherList().add(mr, 0, 4096)));
        }
    }

    @Test
    @DisplayName("implicit ODP (ibv_reg_mr NULL, SIZE_MAX, ON_DEMAND): EOPNOTSUPP without ODP, EINVAL without "
            + "IBV_ODP_SUPPORT_IMPLICIT (rxe_odp_mr_init_user), a region with it")
    void implicitOdpFollowsTheCaps() throws Exception {
        try (Endpoint a = Endpoint.first(backend)) {
            OdpCaps caps = a.context.queryOdpCaps();
            Set<AccessFlag> access = EnumSet.of(AccessFlag.LOCAL_WRITE, AccessFlag.ON_DEMAND);
            if (!caps.supported()) {
                Expect.errno(Errno.EOPNOTSUPP, () -> a.pd.regImplicitOdpMr(access));
            } else if (!caps.generalCaps().contains(OdpCaps.General.SUPPORT_IMPLICIT)) {
                Expect.errno(Errno.EINVAL, () -> a.pd.regImplicitOdpMr(access));
            } else {
                Expect.succeeds("implicit ODP registration", () -> a.pd.regImplicitOdpMr(access).close());
            }
        }
    }

    @Test
    @DisplayName("ODP on RC (SEND, RECV): a SEND from an ODP region lands in a receive posted on an ODP region")
    void rcSendAndReceiveThroughOnDemandRegions() throws Exception {
        try (Endpoint a = Endpoint.first(backend); Endpoint b = Endpoint.second(backend)) {
            requireRc(a, OdpCaps.Transport.SEND, OdpCaps.Transport.RECV);
            QpPair pair = QpPair.connect(a, b, QpType.RC, Mtu.MTU_1024);
            Mr src = a.register(SIZE, ODP_ALL_ACCESS);
            Mr dst = b.register(SIZE, ODP_ALL_ACCESS);
            byte[] bytes = Bytes.pattern(16, 3000);
            Bytes.write(src.segment(), 4096, bytes);
            Bytes.canary(dst.segment());
            pair.qpB.postRecv(RecvWr.of(1, dst, 100, 3000));
            pair.qpA.postSend(SendWr.send(2, src, 4096, 3000));
            Expect.success(Completions.awaitOne(a.cq), 2, WcOpcode.SEND);
            Expect.success(Completions.awaitOne(b.cq), 1, WcOpcode.RECV);
            Bytes.assertAt(dst.segment(), 100, bytes, "the SEND's bytes in the ODP receive buffer");
            Bytes.assertUntouched(dst.segment(), 3100, SIZE - 3100, "past the receive");
        }
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(names = {"WRITE", "READ"})
    @DisplayName("ODP on RC (WRITE, READ): an RDMA WRITE into an ODP region, an RDMA READ from one, moves exactly "
            + "its bytes")
    void rcRdmaWithAnOnDemandRegion(OdpCaps.Transport op) throws Exception {
        try (Endpoint a = Endpoint.first(backend); Endpoint b = Endpoint.second(backend)) {
            requireRc(a, op);
            QpPair pair = QpPair.connect(a, b, QpType.RC, Mtu.MTU_1024);
            Mr local = a.register(SIZE);
            Mr odp = b.register(SIZE, ODP_ALL_ACCESS);
            boolean write = op == OdpCaps.Transport.WRITE;
            Mr from = write ? local : odp;
            Mr into = write ? odp : local;
            byte[] bytes = Bytes.pattern(17, 5000);
            Bytes.canary(into.segment());
            Bytes.write(from.segment(), 1000, bytes);
            long remote = odp.address() + 1000;
            pair.qpA.postSend(write ? SendWr.rdmaWrite(3, local, 1000, 5000, remote, odp.rkey())
                    : SendWr.rdmaRead(3, local, 1000, 5000, remote, odp.rkey()));
            Expect.success(Completions.awaitOne(a.cq), 3, write ? WcOpcode.RDMA_WRITE : WcOpcode.RDMA_READ);
            Bytes.assertAt(into.segment(), 1000, bytes, "the bytes moved");
            Bytes.assertUntouched(into.segment(), 0, 1000, "below them");
            Bytes.assertUntouched(into.segment(), 6000, SIZE - 6000, "above them");
        }
    }

    @Test
    @DisplayName("ODP on RC (ATOMIC): FETCH_AND_ADD on an ODP region returns the old value and adds")
    void rcAtomicOnAnOnDemandRegion() throws Exception {
        try (Endpoint a = Endpoint.first(backend); Endpoint b = Endpoint.second(backend)) {
            requireRc(a, OdpCaps.Transport.ATOMIC);
            QpPair pair = QpPair.connect(a, b, QpType.RC, Mtu.MTU_1024);
            Mr result = a.register(64);
            Mr target = b.register(SIZE, ODP_ALL_ACCESS);
            Bytes.u64(target.segment(), 4096, 40);
            pair.qpA.postSend(SendWr.fetchAndAdd(5, result, 0, target.address() + 4096, target.rkey(), 2));
            Expect.success(Completions.awaitOne(a.cq), 5, WcOpcode.FETCH_ADD);
            assertThat(Bytes.u64(result.segment(), 0)).as("the value before the add").isEqualTo(40);
            assertThat(Bytes.u64(target.segment(), 4096)).as("the value after it").isEqualTo(42);
        }
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(AdviseMrAdvice.class)
    @DisplayName("ibv_advise_mr of ranges inside ODP regions succeeds, synchronous (FLUSH) or not")
    void prefetchInsideOnDemandRegionsSucceeds(AdviseMrAdvice advice) throws Exception {
        try (Endpoint a = Endpoint.first(backend)) {
            requireOdp(a);
            Mr first = a.register(SIZE, ODP_ALL_ACCESS);
            Mr second = a.register(SIZE, EnumSet.of(AccessFlag.LOCAL_WRITE, AccessFlag.ON_DEMAND));
            ScatterGatherList ranges = new ScatterGatherList().add(first, 0, SIZE).add(second, 4096, 100);
            Expect.succeeds("advise " + advice, () -> a.pd.adviseMr(advice, Set.of(), ranges));
            Expect.succeeds("advise " + advice + " with FLUSH",
                    () -> a.pd.adviseMr(advice, EnumSet.of(AdviseMrFlag.FLUSH), ranges));
        }
    }

    @Test
    @DisplayName("ibv_advise_mr with no SGE → EINVAL (the SGE list's minimum size)")
    void prefetchWithoutRangesIsEinval() throws Exception {
        try (Endpoint a = Endpoint.first(backend)) {
            requireOdp(a);
            Expect.errno(Errno.EINVAL, () -> a.pd.adviseMr(AdviseMrAdvice.PREFETCH, EnumSet.of(AdviseMrFlag.FLUSH),
                    new ScatterGatherList()));
        }
    }

    @Test
    @DisplayName("rxe_ib_advise_mr lookup_mr: an lkey that names no region → EINVAL, with FLUSH or without")
    void prefetchOfAnUnknownLkeyIsEinval() throws Exception {
        try (Endpoint a = Endpoint.first(backend)) {
            requireOdp(a);
            Mr mr = a.register(SIZE, ODP_ALL_ACCESS);
            ScatterGatherList ranges = new ScatterGatherList().add(mr.address(), 64, mr.lkey() ^ 0x5A00);
            Expect.errno("advise without FLUSH", Errno.EINVAL,
                    () -> a.pd.adviseMr(AdviseMrAdvice.PREFETCH, Set.of(), ranges));
            Expect.errno("advise with FLUSH", Errno.EINVAL,
                    () -> a.pd.adviseMr(AdviseMrAdvice.PREFETCH, EnumSet.of(AdviseMrFlag.FLUSH), ranges));
        }
    }

    @Test
    @DisplayName("rxe_ib_advise_mr lookup_mr(IB_ACCESS_LOCAL_WRITE): an ODP region without LOCAL_WRITE → EINVAL")
    void prefetchOfARegionWithoutLocalWriteIsEinval() throws Exception {
        try (Endpoint a = Endpoint.first(backend)) {
            requireOdp(a);
            Mr mr = a.register(SIZE, EnumSet.of(AccessFlag.REMOTE_READ, AccessFlag.ON_DEMAND));
            Expect.errno(Errno.EINVAL, () -> a.pd.adviseMr(AdviseMrAdvice.PREFETCH, Set.of(),
                    new ScatterGatherList().add(mr, 0, 64)));
        }
    }

    @Test
    @DisplayName("ib_umem_odp_map_dma_and_lock: a synchronous (FLUSH) prefetch past the region → EFAULT; "
            + "without FLUSH it is best effort and reports nothing")
    void prefetchPastTheRegion() throws Exception {
        try (Endpoint a = Endpoint.first(backend)) {
            requireOdp(a);
            Mr mr = a.register(SIZE, ODP_ALL_ACCESS);
            ScatterGatherList beyond = new ScatterGatherList().add(mr.address() + SIZE, 4096, mr.lkey());
            Expect.errno("advise with FLUSH", Errno.EFAULT,
                    () -> a.pd.adviseMr(AdviseMrAdvice.PREFETCH_WRITE, EnumSet.of(AdviseMrFlag.FLUSH), beyond));
            Expect.succeeds("advise without FLUSH",
                    () -> a.pd.adviseMr(AdviseMrAdvice.PREFETCH_WRITE, Set.of(), beyond));
        }
    }

    /** The device's own answer decides: IBV_ODP_SUPPORT in odp_caps.general_caps. */
    private static void requireOdp(Endpoint e) {
        OdpCaps caps = e.context.queryOdpCaps();
        Assumptions.assumeTrue(caps.supported(), "the device reports no on-demand paging (odp_caps " + caps + ")");
    }

    /** ODP, and these operations in rc_odp_caps. */
    private static void requireRc(Endpoint e, OdpCaps.Transport... ops) {
        OdpCaps caps = e.context.queryOdpCaps();
        Assumptions.assumeTrue(caps.supported() && caps.rcCaps().containsAll(Set.of(ops)),
                // the operations in the order given: a Set.of's order changes from run to run, and the twin check compares reasons
                "the device reports no on-demand paging for RC " + java.util.Arrays.toString(ops)
                        + " (odp_caps " + caps + ")");
    }
}
