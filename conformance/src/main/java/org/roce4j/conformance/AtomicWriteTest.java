package org.roce4j.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.MemorySegment;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.roce4j.verbs.AccessFlag;
import org.roce4j.verbs.DeviceCapFlagEx;
import org.roce4j.verbs.Mr;
import org.roce4j.verbs.Mtu;
import org.roce4j.verbs.QpCap;
import org.roce4j.verbs.QpEx;
import org.roce4j.verbs.QpState;
import org.roce4j.verbs.QpType;
import org.roce4j.verbs.SendFlag;
import org.roce4j.verbs.SendOpsFlag;
import org.roce4j.verbs.WcOpcode;
import org.roce4j.verbs.WcStatus;
import org.roce4j.verbs.WorkCompletion;

/**
 * IBTA 1.5 ATOMIC WRITE through {@code ibv_wr_atomic_write} (rdma-core 44; rxe since kernel 6.2): 8 bytes stored
 * at the responder as one unit, answered by an RDMA READ response of no payload, completed IBV_WC_ATOMIC_WRITE;
 * the responder's checks (rxe_resp.c): REMOTE_WRITE on the QP (else NAK invalid request, REM_INV_REQ_ERR) and on
 * the region (else REM_ACCESS_ERR), the 8 bytes inside the region (REM_ACCESS_ERR), an 8-byte aligned address
 * (REM_INV_REQ_ERR). A device that does not report {@code IB_UVERBS_DEVICE_ATOMIC_WRITE} in
 * {@code device_cap_flags_ex} (kernel 6.1) skips these tests.
 */
@ExtendWith(Backend.Resolver.class)
class AtomicWriteTest {
    private static final Set<SendOpsFlag> OPS = EnumSet.of(SendOpsFlag.ATOMIC_WRITE, SendOpsFlag.SEND);
    private static final long VALUE = 0x0123_4567_89AB_CDEFL;

    private final Backend backend;

    AtomicWriteTest(Backend backend) {
        this.backend = backend;
    }

    @Test
    @DisplayName("IBTA 1.5 ATOMIC WRITE: the 8 bytes land as they were given, nothing around them; the requester "
            + "completes IBV_WC_ATOMIC_WRITE")
    void atomicWriteStoresEightBytes() throws Exception {
        try (Endpoint a = Endpoint.first(backend); Endpoint b = Endpoint.second(backend)) {
            requireAtomicWrite(a);
            QpPair pair = connect(a, b, QpPair.remoteAccess());
            Mr remote = b.register(64);
            Bytes.canary(remote.segment());
            WorkCompletion wc = atomicWrite(pair, remote.rkey(), remote.address() + 16);
            Expect.success(wc, 5, WcOpcode.ATOMIC_WRITE);
            assertThat(Bytes.u64(remote.segment(), 16)).as("the 8 bytes, host order").isEqualTo(VALUE);
            Bytes.assertUntouched(remote.segment(), 0, 16, "below the ATOMIC WRITE");
            Bytes.assertUntouched(remote.segment(), 24, 40, "above the ATOMIC WRITE");
            assertThat(pair.qpA.state()).isEqualTo(QpState.RTS);
        }
    }

    @Test
    @DisplayName("ATOMIC WRITE then SEND in one batch: both complete in order, the ATOMIC WRITE first")
    void atomicWriteIsOrderedWithTheSendsAfterIt() throws Exception {
        try (Endpoint a = Endpoint.first(backend); Endpoint b = Endpoint.second(backend)) {
            requireAtomicWrite(a);
            QpPair pair = connect(a, b, QpPair.remoteAccess());
            Mr remote = b.register(64);
            Mr local = a.register(64);
            Mr recv = b.register(64);
            pair.qpB.postRecv(org.roce4j.verbs.RecvWr.of(300, recv, 0, 64));
            QpEx qp = pair.exA();
            MemorySegment value = a.allocate(8);
            Bytes.u64(value, 0, VALUE);
            qp.wrStart();
            qp.wrId(1); qp.wrFlags(SendFlag.SIGNALED.bit());
            qp.wrAtomicWrite(remote.rkey(), remote.address(), value);
            qp.wrId(2); qp.wrSend(); qp.wrSetSge(local, 0, 16);
            Expect.outcome("ibv_wr_complete", 0, qp.wrComplete());
            List<WorkCompletion> wcs = Completions.await(a.cq, 2);
            Expect.success(wcs.get(0), 1, WcOpcode.ATOMIC_WRITE);
            Expect.success(wcs.get(1), 2, WcOpcode.SEND);
            Expect.success(Completions.awaitOne(b.cq), 300, WcOpcode.RECV);
            assertThat(Bytes.u64(remote.segment(), 0)).isEqualTo(VALUE);
        }
    }

    @Test
    @DisplayName("rxe check_op_valid: ATOMIC WRITE to a QP without REMOTE_WRITE in qp_access_flags → REM_INV_REQ_ERR, "
            + "nothing written")
    void qpWithoutRemoteWrite() throws Exception {
        violation(EnumSet.of(AccessFlag.REMOTE_READ, AccessFlag.REMOTE_ATOMIC), Endpoint.ALL_ACCESS, 0,
                WcStatus.REM_INV_REQ_ERR);
    }

    @Test
    @DisplayName("rxe check_rkey: ATOMIC WRITE needs REMOTE_WRITE on the region (REMOTE_ATOMIC is not enough) → "
            + "REM_ACCESS_ERR, nothing written")
    void regionWithoutRemoteWrite() throws Exception {
        violation(QpPair.remoteAccess(), EnumSet.of(AccessFlag.LOCAL_WRITE, AccessFlag.REMOTE_READ,
                AccessFlag.REMOTE_ATOMIC), 0, WcStatus.REM_ACCESS_ERR);
    }

    @Test
    @DisplayName("rxe check_rkey mr_check_range: ATOMIC WRITE whose 8 bytes run past the region → REM_ACCESS_ERR")
    void pastTheEndOfTheRegion() throws Exception {
        violation(QpPair.remoteAccess(), Endpoint.ALL_ACCESS, 60, WcStatus.REM_ACCESS_ERR);
    }

    @Test
    @DisplayName("rxe atomic_write_reply: ATOMIC WRITE to an address not 8-byte aligned → NAK invalid request, "
            + "REM_INV_REQ_ERR, nothing written")
    void misalignedAddress() throws Exception {
        violation(QpPair.remoteAccess(), Endpoint.ALL_ACCESS, 4, WcStatus.REM_INV_REQ_ERR);
    }

    private void violation(Set<AccessFlag> qpAccess, Set<AccessFlag> regionAccess, long offset, WcStatus status)
            throws Exception {
        try (Endpoint a = Endpoint.first(backend); Endpoint b = Endpoint.second(backend)) {
            requireAtomicWrite(a);
            QpPair pair = connect(a, b, qpAccess);
            Mr remote = b.register(64, regionAccess);
            Bytes.canary(remote.segment());
            WorkCompletion wc = atomicWrite(pair, remote.rkey(), remote.address() + offset);
            Expect.status(wc, 5, status);
            assertThat(pair.qpA.state()).isEqualTo(QpState.ERR);
            Bytes.assertUntouched(remote.segment(), 0, 64, "the region the ATOMIC WRITE was refused");
        }
    }

    private static QpPair connect(Endpoint a, Endpoint b, Set<AccessFlag> remoteAccess) {
        return QpPair.connectEx(a, b, QpType.RC, Mtu.MTU_1024, QpCap.of(8, 8), remoteAccess, OPS);
    }

    /** One signaled ATOMIC WRITE of {@link #VALUE} (host order) with wr_id 5; its completion. */
    private static WorkCompletion atomicWrite(QpPair pair, int rkey, long remoteAddr) {
        QpEx qp = pair.exA();
        MemorySegment value = pair.a.allocate(8);
        Bytes.u64(value, 0, VALUE);
        qp.wrStart();
        qp.wrId(5);
        qp.wrFlags(SendFlag.SIGNALED.bit());
        qp.wrAtomicWrite(rkey, remoteAddr, value);
        Expect.outcome("ibv_wr_complete", 0, qp.wrComplete());
        return Completions.awaitOne(pair.a.cq);
    }

    /** The device's own answer decides: IB_UVERBS_DEVICE_ATOMIC_WRITE in device_cap_flags_ex (kernel 6.2 on). */
    static void requireAtomicWrite(Endpoint e) {
        Set<DeviceCapFlagEx> flags = e.context.queryDeviceCapFlagsEx();
        Assumptions.assumeTrue(flags.contains(DeviceCapFlagEx.ATOMIC_WRITE),
                "the device does not report IB_UVERBS_DEVICE_ATOMIC_WRITE in device_cap_flags_ex " + flags);
    }
}
