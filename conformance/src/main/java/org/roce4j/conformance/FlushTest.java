package org.roce4j.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.EnumSet;
import java.util.List;
import java.util.Set;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.roce4j.verbs.AccessFlag;
import org.roce4j.verbs.DeviceCapFlagEx;
import org.roce4j.verbs.Errno;
import org.roce4j.verbs.FlushLevel;
import org.roce4j.verbs.FlushType;
import org.roce4j.verbs.Mr;
import org.roce4j.verbs.Mtu;
import org.roce4j.verbs.QpCap;
import org.roce4j.verbs.QpEx;
import org.roce4j.verbs.QpState;
import org.roce4j.verbs.QpType;
import org.roce4j.verbs.SendFlag;
import org.roce4j.verbs.SendOpsFlag;
import org.roce4j.verbs.VerbsException;
import org.roce4j.verbs.WcOpcode;
import org.roce4j.verbs.WcStatus;
import org.roce4j.verbs.WorkCompletion;

/**
 * IBTA 1.5 FLUSH through {@code ibv_wr_flush} (rdma-core 45; rxe since kernel 6.2): executed after every earlier
 * request of the QP is placed, answered by an RDMA READ response of no payload, completed IBV_WC_FLUSH; the
 * responder's checks (rxe_resp.c check_rkey): the region's FLUSH right for the placement type (else REM_ACCESS_ERR),
 * the range inside the region at level RANGE (REM_ACCESS_ERR), nothing of it at level MR. What decides a skip is what
 * the device and the library report: {@code IB_UVERBS_DEVICE_FLUSH_GLOBAL} in {@code device_cap_flags_ex} (not on
 * kernel 6.1) and a provider that creates a QP with IBV_QP_EX_WITH_FLUSH (rdma-core 44's rxe refuses it: EOPNOTSUPP).
 * The registration rules need no {@code ibv_wr_flush} and run wherever the device reports the capability.
 */
@ExtendWith(Backend.Resolver.class)
class FlushTest {
    private static final Set<SendOpsFlag> OPS = EnumSet.of(SendOpsFlag.FLUSH, SendOpsFlag.RDMA_WRITE);
    /** The QPs' rights: rxe_resp.c check_qp_attr_access wants the QP's FLUSH right of each placement type too. */
    private static final Set<AccessFlag> QP_FLUSH_ACCESS = EnumSet.of(AccessFlag.REMOTE_WRITE, AccessFlag.REMOTE_READ,
            AccessFlag.REMOTE_ATOMIC, AccessFlag.FLUSH_GLOBAL, AccessFlag.FLUSH_PERSISTENT);
    private static final Set<AccessFlag> GLOBAL = EnumSet.of(AccessFlag.LOCAL_WRITE, AccessFlag.REMOTE_WRITE,
            AccessFlag.REMOTE_READ, AccessFlag.FLUSH_GLOBAL);

    private final Backend backend;

    FlushTest(Backend backend) {
        this.backend = backend;
    }

    @Test
    @DisplayName("IBTA 1.5 9.4.8: WRITEs then a FLUSH of their range (placement type GLOBAL, level RANGE) complete "
            + "in order, the FLUSH as IBV_WC_FLUSH, and the data is in place")
    void flushAfterWritesOfItsRange() throws Exception {
        try (Endpoint a = Endpoint.first(backend); Endpoint b = Endpoint.second(backend)) {
            QpPair pair = connect(a, b);
            Mr remote = b.register(8192, GLOBAL);
            Mr local = a.register(8192);
            local.segment().fill((byte) 0x6B);
            QpEx qp = pair.exA();
            qp.wrStart();
            qp.wrId(1); qp.wrFlags(SendFlag.SIGNALED.bit());
            qp.wrRdmaWrite(remote.rkey(), remote.address()); qp.wrSetSge(local, 0, 3000);
            qp.wrId(2); qp.wrFlags(SendFlag.SIGNALED.bit());
            qp.wrRdmaWrite(remote.rkey(), remote.address() + 3000); qp.wrSetSge(local, 3000, 5000);
            qp.wrId(3); qp.wrFlags(SendFlag.SIGNALED.bit());
            qp.wrFlush(remote.rkey(), remote.address(), 8000, FlushType.GLOBAL, FlushLevel.RANGE);
            Expect.outcome("ibv_wr_complete", 0, qp.wrComplete());
            List<WorkCompletion> wcs = Completions.await(a.cq, 3);
            Expect.success(wcs.get(0), 1, WcOpcode.RDMA_WRITE);
            Expect.success(wcs.get(1), 2, WcOpcode.RDMA_WRITE);
            Expect.success(wcs.get(2), 3, WcOpcode.FLUSH);
            for (long i = 0; i < 8000; i += 997) {
                assertThat(remote.segment().get(java.lang.foreign.ValueLayout.JAVA_BYTE, i)).isEqualTo((byte) 0x6B);
            }
            assertThat(pair.qpA.state()).isEqualTo(QpState.RTS);
        }
    }

    @Test
    @DisplayName("rxe_resp.c check_rkey: a FLUSH at level MR ignores its address and length (address 0, a length "
            + "past the region) and succeeds")
    void levelMrIgnoresAddressAndLength() throws Exception {
        try (Endpoint a = Endpoint.first(backend); Endpoint b = Endpoint.second(backend)) {
            QpPair pair = connect(a, b);
            Mr remote = b.register(4096, GLOBAL);
            Expect.success(flush(pair, remote.rkey(), 0, 1 << 20, FlushType.GLOBAL, FlushLevel.MR), 7,
                    WcOpcode.FLUSH);
            assertThat(pair.qpA.state()).isEqualTo(QpState.RTS);
        }
    }

    @Test
    @DisplayName("rxe_resp.c check_rkey mr_check_range: a FLUSH at level RANGE that runs past the region → "
            + "REM_ACCESS_ERR, the QP in ERR")
    void rangePastTheRegion() throws Exception {
        violation(GLOBAL, 4000, 200, FlushType.GLOBAL);
    }

    @Test
    @DisplayName("rxe_resp.c check_rkey: a GLOBAL FLUSH to a region without IBV_ACCESS_FLUSH_GLOBAL (every remote "
            + "right but that one) → REM_ACCESS_ERR, the QP in ERR")
    void regionWithoutFlushGlobal() throws Exception {
        violation(Endpoint.ALL_ACCESS, 0, 64, FlushType.GLOBAL);
    }

    @Test
    @DisplayName("rxe_resp.c check_rkey: a PERSISTENT FLUSH to a region with FLUSH_GLOBAL only → REM_ACCESS_ERR, "
            + "the QP in ERR")
    void persistentFlushToAGlobalRegion() throws Exception {
        violation(GLOBAL, 0, 64, FlushType.PERSISTENT);
    }

    @Test
    @DisplayName("rxe_resp.c check_qp_attr_access: a GLOBAL FLUSH to a QP without IBV_ACCESS_FLUSH_GLOBAL in its "
            + "qp_access_flags → NAK invalid request, REM_INV_REQ_ERR, the QP in ERR")
    void qpWithoutFlushGlobal() throws Exception {
        try (Endpoint a = Endpoint.first(backend); Endpoint b = Endpoint.second(backend)) {
            QpPair pair = connect(a, b, QpPair.remoteAccess());
            Mr remote = b.register(4096, GLOBAL);
            Expect.status(flush(pair, remote.rkey(), remote.address(), 64, FlushType.GLOBAL, FlushLevel.RANGE), 7,
                    WcStatus.REM_INV_REQ_ERR);
            assertThat(pair.qpA.state()).isEqualTo(QpState.ERR);
        }
    }

    @Test
    @DisplayName("ib_check_mr_access / rxe_mr.c: a region may be registered with IBV_ACCESS_FLUSH_GLOBAL where the "
            + "device reports FLUSH_GLOBAL; IBV_ACCESS_FLUSH_PERSISTENT over ordinary memory (not pmem) is EINVAL")
    void flushRightsAtRegistration() throws Exception {
        try (Endpoint a = Endpoint.first(backend)) {
            Set<DeviceCapFlagEx> flags = a.context.queryDeviceCapFlagsEx();
            Assumptions.assumeTrue(flags.contains(DeviceCapFlagEx.FLUSH_GLOBAL)
                    && flags.contains(DeviceCapFlagEx.FLUSH_PERSISTENT), "the device does not report "
                    + "IB_UVERBS_DEVICE_FLUSH_GLOBAL and _PERSISTENT in device_cap_flags_ex " + flags);
            Mr global = a.register(4096, GLOBAL);
            assertThat(global.rkey()).isNotZero();
            Expect.errno(Errno.EINVAL, () -> a.register(4096, EnumSet.of(AccessFlag.LOCAL_WRITE,
                    AccessFlag.FLUSH_PERSISTENT)));
        }
    }

    private void violation(Set<AccessFlag> regionAccess, long offset, long length, FlushType type) throws Exception {
        try (Endpoint a = Endpoint.first(backend); Endpoint b = Endpoint.second(backend)) {
            QpPair pair = connect(a, b);
            Mr remote = b.register(4096, regionAccess);
            Expect.status(flush(pair, remote.rkey(), remote.address() + offset, length, type, FlushLevel.RANGE), 7,
                    WcStatus.REM_ACCESS_ERR);
            assertThat(pair.qpA.state()).isEqualTo(QpState.ERR);
        }
    }

    /**
     * Two connected QPs whose requester can post FLUSH; skips the test when the device does not report FLUSH or
     * the provider refuses IBV_QP_EX_WITH_FLUSH (a library without {@code ibv_wr_flush}).
     */
    private static QpPair connect(Endpoint a, Endpoint b) {
        return connect(a, b, QP_FLUSH_ACCESS);
    }

    private static QpPair connect(Endpoint a, Endpoint b, Set<AccessFlag> qpAccess) {
        Set<DeviceCapFlagEx> flags = a.context.queryDeviceCapFlagsEx();
        Assumptions.assumeTrue(flags.contains(DeviceCapFlagEx.FLUSH_GLOBAL),
                "the device does not report IB_UVERBS_DEVICE_FLUSH_GLOBAL in device_cap_flags_ex " + flags);
        try {
            return QpPair.connectEx(a, b, QpType.RC, Mtu.MTU_1024, QpCap.of(8, 8), qpAccess, OPS);
        } catch (VerbsException e) {
            Assumptions.assumeTrue(e.errno() != Errno.EOPNOTSUPP,
                    // the errno alone: the backends word the failed call differently, and the twin check compares reasons
                    "the provider refuses IBV_QP_EX_WITH_FLUSH (no ibv_wr_flush before rdma-core 45): ibv_create_qp_ex "
                            + e.errno().name() + " (" + e.errno().text() + ")");
            throw e;
        }
    }

    /** One signaled FLUSH with wr_id 7; its completion. */
    private static WorkCompletion flush(QpPair pair, int rkey, long remoteAddr, long length, FlushType type,
                                        FlushLevel level) {
        QpEx qp = pair.exA();
        qp.wrStart();
        qp.wrId(7);
        qp.wrFlags(SendFlag.SIGNALED.bit());
        qp.wrFlush(rkey, remoteAddr, length, type, level);
        Expect.outcome("ibv_wr_complete", 0, qp.wrComplete());
        return Completions.awaitOne(pair.a.cq);
    }
}
