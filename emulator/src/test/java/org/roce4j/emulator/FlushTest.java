package org.roce4j.emulator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.roce4j.emulator.fabric.Fabric;
import org.roce4j.emulator.fabric.FrameFilter;
import org.roce4j.verbs.AccessFlag;
import org.roce4j.verbs.DeviceCapFlagEx;
import org.roce4j.verbs.Errno;
import org.roce4j.verbs.FlushLevel;
import org.roce4j.verbs.FlushType;
import org.roce4j.verbs.Mr;
import org.roce4j.verbs.Mtu;
import org.roce4j.verbs.QpAttr;
import org.roce4j.verbs.QpCap;
import org.roce4j.verbs.QpEx;
import org.roce4j.verbs.QpInitAttr;
import org.roce4j.verbs.QpInitAttrEx;
import org.roce4j.verbs.QpState;
import org.roce4j.verbs.QpType;
import org.roce4j.verbs.SendFlag;
import org.roce4j.verbs.SendOpsFlag;
import org.roce4j.verbs.SendWr;
import org.roce4j.verbs.VerbsException;
import org.roce4j.verbs.WcOpcode;
import org.roce4j.verbs.WcStatus;
import org.roce4j.verbs.WorkCompletion;
import org.roce4j.wire.HeaderType;
import org.roce4j.wire.OperationKind;
import org.roce4j.wire.PacketInfo;

/**
 * IBTA 1.5 FLUSH in the emulator, as kernel 6.12's rxe executes it (rxe_req.c, rxe_resp.c check_rkey and
 * process_flush, rxe_comp.c check_ack): the request (FETH then RETH, no payload), its answer (an RDMA READ Response
 * Only of no payload), the region's FLUSH rights, the range check and level MR, the ordering after earlier writes,
 * duplicates, registration, and the rxe profiles' library without {@code ibv_wr_flush}.
 */
class FlushTest {
    /** The responder QP's rights: rxe_resp.c check_qp_attr_access wants the FLUSH right of each placement type. */
    private static final Set<AccessFlag> QP_FLUSH_ACCESS = EnumSet.of(AccessFlag.REMOTE_WRITE, AccessFlag.REMOTE_READ,
            AccessFlag.FLUSH_GLOBAL, AccessFlag.FLUSH_PERSISTENT);
    static final Set<AccessFlag> GLOBAL = EnumSet.of(AccessFlag.LOCAL_WRITE, AccessFlag.REMOTE_WRITE,
            AccessFlag.FLUSH_GLOBAL);

    /** Every frame's opcode kind and, for a FLUSH, its FETH and RETH fields; the target byte when B answers it. */
    private static final class Recorder implements FrameFilter {
        final List<OperationKind> kinds = new ArrayList<>();
        final List<String> flushes = new ArrayList<>();
        final List<Byte> targetWhenAnswered = new ArrayList<>();
        private final FaultScript faults;
        private final MemorySegment watched;

        Recorder(FaultScript faults, MemorySegment watched) {
            this.faults = faults;
            this.watched = watched;
        }

        @Override
        public long deliveryTimeNanos(byte[] frame, int length, long transmitNanos, long nominalDeliveryNanos) {
            PacketInfo p = new PacketInfo();
            if (p.parseFrame(frame, 0, length)) {
                OperationKind kind = p.opcode().kind();
                kinds.add(kind);
                if (p.opcode().has(HeaderType.FETH)) {
                    flushes.add("sel=" + p.fethSelectivityLevel() + " plt=" + p.fethPlacementType() + " va="
                            + Long.toHexString(p.rethVirtualAddress()) + " rkey=" + Integer.toHexString(p.rethRkey())
                            + " len=" + p.rethDmaLength() + " payload=" + p.payloadLength());
                }
                if (kind == OperationKind.RDMA_READ_RESPONSE) {
                    targetWhenAnswered.add(watched.get(ValueLayout.JAVA_BYTE, 0));
                }
            }
            return faults.deliveryTimeNanos(frame, length, transmitNanos, nominalDeliveryNanos);
        }
    }

    @Test
    @DisplayName("IBTA 1.5 9.4.8 / rxe_req.c: FLUSH is one RC FLUSH packet, FETH (selectivity level, placement type) "
            + "then RETH (rkey, address, length), no payload; rxe_resp.c answers it with an RDMA READ Response Only of "
            + "no payload once the WRITE before it is placed; it completes IBV_WC_FLUSH")
    void flushAfterAWriteOnTheWire() {
        try (TwoNodes nodes = new TwoNodes()) {
            Mr region = nodes.b.pd.regMr(nodes.b.memory.asSlice(0, 65536), GLOBAL);
            Recorder recorder = new Recorder(new FaultScript(), nodes.b.memory.asSlice(4096, 1));
            QpEx qp = connectedEx(nodes);
            nodes.fabric.filter(recorder);
            writeThenFlush(nodes, qp, region, (byte) 0x5A);

            List<WorkCompletion> wcs = nodes.a.pollAll();
            assertThat(wcs).hasSize(1);
            assertThat(wcs.getFirst().status()).isEqualTo(WcStatus.SUCCESS);
            assertThat(wcs.getFirst().opcode()).isEqualTo(WcOpcode.FLUSH);
            assertThat(wcs.getFirst().wrId()).isEqualTo(2);
            assertThat(recorder.kinds).containsSubsequence(OperationKind.RDMA_WRITE, OperationKind.RDMA_WRITE,
                    OperationKind.RDMA_WRITE, OperationKind.FLUSH, OperationKind.RDMA_READ_RESPONSE);
            assertThat(recorder.flushes).containsExactly("sel=0 plt=1 va=" + Long.toHexString(region.address() + 4096)
                    + " rkey=" + Integer.toHexString(region.rkey()) + " len=3000 payload=0");
            assertThat(recorder.targetWhenAnswered).as("the WRITE's bytes were placed before the answer")
                    .containsExactly((byte) 0x5A);
        }
    }

    @Test
    @DisplayName("IBTA 1.5 FLUSH ordering: a FLUSH behind a WRITE whose middle packet was lost is not executed out "
            + "of sequence; it is answered only after the WRITE was resent and placed")
    void flushWaitsForTheWriteBeforeIt() {
        try (TwoNodes nodes = new TwoNodes()) {
            Mr region = nodes.b.pd.regMr(nodes.b.memory.asSlice(0, 65536), GLOBAL);
            FaultScript faults = new FaultScript().dropNth(2, FaultScript.fromA(OperationKind.RDMA_WRITE));
            Recorder recorder = new Recorder(faults, nodes.b.memory.asSlice(4096 + 1500, 1));
            QpEx qp = connectedEx(nodes);
            nodes.fabric.filter(recorder);
            writeThenFlush(nodes, qp, region, (byte) 0x33);
            nodes.fabric.runFor(Duration.ofSeconds(1));

            List<WorkCompletion> wcs = nodes.a.pollAll();
            assertThat(wcs).extracting(WorkCompletion::status).containsExactly(WcStatus.SUCCESS);
            assertThat(recorder.kinds.stream().filter(k -> k == OperationKind.FLUSH).count())
                    .as("the FLUSH was sent again after the go-back").isEqualTo(2);
            assertThat(recorder.targetWhenAnswered).containsExactly((byte) 0x33);
        }
    }

    @Test
    @DisplayName("rxe_resp.c check_rkey: FLUSH at level MR ignores the address and the length (no range check); "
            + "at level RANGE a range past the region's end is REM_ACCESS_ERR and the QP goes to ERR")
    void levelMrIgnoresTheRangeAndRangeIsChecked() {
        try (TwoNodes nodes = new TwoNodes()) {
            Mr region = nodes.b.pd.regMr(nodes.b.memory.asSlice(0, 65536), GLOBAL);
            QpEx qp = connectedEx(nodes);
            flush(qp, 1, region.rkey(), 0, 1 << 30, FlushType.GLOBAL, FlushLevel.MR);
            assertThat(nodes.a.pollAll()).extracting(WorkCompletion::status).containsExactly(WcStatus.SUCCESS);
            flush(qp, 2, region.rkey(), region.address() + 65000, 1000, FlushType.GLOBAL, FlushLevel.RANGE);
            assertThat(nodes.a.pollAll()).extracting(WorkCompletion::status).containsExactly(WcStatus.REM_ACCESS_ERR);
            assertThat(qp.state()).isEqualTo(QpState.ERR);
        }
    }

    @Test
    @DisplayName("rxe_resp.c check_rkey: the region needs the FLUSH right of the placement type: GLOBAL to a region "
            + "without FLUSH_GLOBAL, and PERSISTENT to one with FLUSH_GLOBAL only, are REM_ACCESS_ERR")
    void aRegionWithoutTheFlushRightIsRemAccessErr() {
        try (TwoNodes nodes = new TwoNodes()) {
            QpEx qp = connectedEx(nodes);
            flush(qp, 1, nodes.b.mr.rkey(), nodes.b.mr.address(), 64, FlushType.GLOBAL, FlushLevel.RANGE);
            assertThat(nodes.a.pollAll()).extracting(WorkCompletion::status).containsExactly(WcStatus.REM_ACCESS_ERR);
        }
        try (TwoNodes nodes = new TwoNodes()) {
            Mr region = nodes.b.pd.regMr(nodes.b.memory.asSlice(0, 65536), GLOBAL);
            QpEx qp = connectedEx(nodes);
            flush(qp, 1, region.rkey(), region.address(), 64, FlushType.PERSISTENT, FlushLevel.MR);
            assertThat(nodes.a.pollAll()).extracting(WorkCompletion::status).containsExactly(WcStatus.REM_ACCESS_ERR);
        }
    }

    @Test
    @DisplayName("rxe_resp.c check_qp_attr_access (measured on rxe0 of 6.12): a GLOBAL FLUSH to a QP without "
            + "IBV_ACCESS_FLUSH_GLOBAL in its qp_access_flags is NAKed invalid request: REM_INV_REQ_ERR")
    void aQpWithoutTheFlushRightIsRemInvReqErr() {
        try (TwoNodes nodes = new TwoNodes()) {
            Mr region = nodes.b.pd.regMr(nodes.b.memory.asSlice(0, 65536), GLOBAL);
            QpEx qa = createFlushQp(nodes);
            var qb = nodes.b.createQp(QpType.RC, 16);
            TwoNodes.connect(qa, qb.qpNum(), nodes.b.gid(), 100, 200, Mtu.MTU_1024);
            TwoNodes.connect(qb, qa.qpNum(), nodes.a.gid(), 200, 100, Mtu.MTU_1024);
            flush(qa, 1, region.rkey(), region.address(), 64, FlushType.GLOBAL, FlushLevel.RANGE);
            assertThat(nodes.a.pollAll()).extracting(WorkCompletion::status).containsExactly(WcStatus.REM_INV_REQ_ERR);
        }
    }

    @Test
    @DisplayName("rxe_mr.c: FLUSH_PERSISTENT needs persistent memory; the emulator's memory is not, so the "
            + "registration is EINVAL (as rxe over RAM); kernel 6.1 knows neither FLUSH bit: EINVAL for FLUSH_GLOBAL too")
    void flushRightsAtRegistration() {
        try (TwoNodes nodes = new TwoNodes()) {
            assertThatThrownBy(() -> nodes.b.pd.regMr(nodes.b.memory.asSlice(0, 4096),
                    EnumSet.of(AccessFlag.LOCAL_WRITE, AccessFlag.FLUSH_PERSISTENT)))
                    .isInstanceOfSatisfying(VerbsException.class, e -> assertThat(e.errno()).isEqualTo(Errno.EINVAL));
            assertThat(nodes.b.pd.regMr(nodes.b.memory.asSlice(0, 4096), EnumSet.of(AccessFlag.FLUSH_GLOBAL)).rkey())
                    .isNotZero();
        }
        try (TwoNodes nodes = new TwoNodes(Fabric.deterministic(), DeviceProfile.RXE_6_1)) {
            assertThatThrownBy(() -> nodes.b.pd.regMr(nodes.b.memory.asSlice(0, 4096), GLOBAL))
                    .isInstanceOfSatisfying(VerbsException.class, e -> assertThat(e.errno()).isEqualTo(Errno.EINVAL));
        }
    }

    @Test
    @DisplayName("IBTA oA19-14 / rxe duplicate_request: a FLUSH whose answer is lost is answered again from its "
            + "resource when the requester retries it")
    void aDuplicateFlushIsAnsweredAgain() {
        FaultScript script = new FaultScript().dropNth(1, FaultScript.fromB(OperationKind.RDMA_READ_RESPONSE));
        try (TwoNodes nodes = new TwoNodes()) {
            Mr region = nodes.b.pd.regMr(nodes.b.memory.asSlice(0, 65536), GLOBAL);
            QpEx qp = connectedEx(nodes);
            nodes.fabric.filter(script);
            flush(qp, 1, region.rkey(), region.address(), 64, FlushType.GLOBAL, FlushLevel.RANGE);
            assertThat(nodes.a.pollAll()).extracting(WorkCompletion::status).containsExactly(WcStatus.SUCCESS);
            assertThat(script.requestPsnsFromA()).containsExactly(100, 100);
            assertThat(nodes.b.context.queryPortCounters(1).get("duplicate_request")).isEqualTo(1);
        }
    }

    @Test
    @DisplayName("rxe convert_send_wr: ibv_post_send of IBV_WR_FLUSH copies no remote fields (ibv_send_wr has none "
            + "for it): the FLUSH goes out with rkey 0, type 0, level 0 and fails REM_ACCESS_ERR; on kernel 6.1 the "
            + "requester has no opcode for it: LOC_QP_OP_ERR (Quirk.PREDATES_ATOMIC_WRITE_AND_FLUSH)")
    void postSendOfAFlush() {
        for (DeviceProfile profile : List.of(DeviceProfile.LINUX, DeviceProfile.RXE_6_1)) {
            try (TwoNodes nodes = new TwoNodes(Fabric.deterministic(), profile)) {
                var qa = nodes.a.createQp(QpType.RC, 16);
                var qb = nodes.b.createQp(QpType.RC, 16);
                TwoNodes.connect(qa, qb.qpNum(), nodes.b.gid(), 100, 200, Mtu.MTU_1024);
                TwoNodes.connect(qb, qa.qpNum(), nodes.a.gid(), 200, 100, Mtu.MTU_1024);
                qa.postSend(new SendWr().wrId(3).opcode(org.roce4j.verbs.WrOpcode.FLUSH).signaled(true)
                        .remote(nodes.b.mr.address(), nodes.b.mr.rkey()));
                assertThat(nodes.a.pollAll()).extracting(WorkCompletion::status).as(profile.id()).containsExactly(
                        profile == DeviceProfile.LINUX ? WcStatus.REM_ACCESS_ERR : WcStatus.LOC_QP_OP_ERR);
            }
        }
    }

    @Test
    @DisplayName("Quirk.PROVIDER_HAS_NO_WR_FLUSH (rxe profiles, rdma-core 44): ibv_create_qp_ex with "
            + "IBV_QP_EX_WITH_FLUSH is EOPNOTSUPP; the default (rdma-core 45 and later) creates it; both report "
            + "FLUSH_GLOBAL and FLUSH_PERSISTENT, kernel 6.1 neither")
    void theRxeProfilesLibraryHasNoWrFlush() {
        try (TwoNodes nodes = new TwoNodes(Fabric.deterministic(), DeviceProfile.RXE_6_12)) {
            assertThatThrownBy(() -> createFlushQp(nodes))
                    .isInstanceOfSatisfying(VerbsException.class, e -> assertThat(e.errno()).isEqualTo(Errno.EOPNOTSUPP));
        }
        try (TwoNodes nodes = new TwoNodes()) {
            assertThat(createFlushQp(nodes).sendOps()).contains(SendOpsFlag.FLUSH);
        }
        assertThat(ProfiledDevice.open(DeviceProfile.LINUX).queryDeviceCapFlagsEx())
                .contains(DeviceCapFlagEx.FLUSH_GLOBAL, DeviceCapFlagEx.FLUSH_PERSISTENT);
        assertThat(ProfiledDevice.open(DeviceProfile.RXE_6_12).queryDeviceCapFlagsEx())
                .contains(DeviceCapFlagEx.FLUSH_GLOBAL, DeviceCapFlagEx.FLUSH_PERSISTENT);
        assertThat(ProfiledDevice.open(DeviceProfile.RXE_6_1).queryDeviceCapFlagsEx()).isEmpty();
    }

    /** One batch: an unsignaled 3000-byte WRITE of {@code fill} at 4096 in {@code region}, then a signaled FLUSH of it. */
    private static void writeThenFlush(TwoNodes nodes, QpEx qp, Mr region, byte fill) {
        MemorySegment data = nodes.a.memory.asSlice(0, 3000).fill(fill);
        qp.wrStart();
        qp.wrId(1);
        qp.wrRdmaWrite(region.rkey(), region.address() + 4096);
        qp.wrSetSge(nodes.a.mr.lkey(), data.address(), 3000);
        qp.wrId(2);
        qp.wrFlags(SendFlag.SIGNALED.bit());
        qp.wrFlush(region.rkey(), region.address() + 4096, 3000, FlushType.GLOBAL, FlushLevel.RANGE);
        assertThat(qp.wrComplete()).isZero();
    }

    private static QpEx createFlushQp(TwoNodes nodes) {
        return nodes.a.pd.createQpEx(new QpInitAttrEx(QpInitAttr.of(QpType.RC, nodes.a.cq,
                new QpCap(16, 16, 4, 4, 64)), EnumSet.of(SendOpsFlag.FLUSH, SendOpsFlag.RDMA_WRITE)));
    }

    static QpEx connectedEx(TwoNodes nodes) {
        QpEx qa = createFlushQp(nodes);
        var qb = nodes.b.createQp(QpType.RC, 16);
        TwoNodes.connect(qa, qb.qpNum(), nodes.b.gid(), 100, 200, Mtu.MTU_1024);
        TwoNodes.connect(qb, qa.qpNum(), nodes.a.gid(), 200, 100, Mtu.MTU_1024);
        qb.modify(new QpAttr().qpAccessFlags(QP_FLUSH_ACCESS));
        return qa;
    }

    static void flush(QpEx qp, long wrId, int rkey, long address, long length, FlushType type,
                              FlushLevel level) {
        qp.wrStart();
        qp.wrId(wrId);
        qp.wrFlags(SendFlag.SIGNALED.bit());
        qp.wrFlush(rkey, address, length, type, level);
        assertThat(qp.wrComplete()).isZero();
    }
}
