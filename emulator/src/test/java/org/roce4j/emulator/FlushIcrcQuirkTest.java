package org.roce4j.emulator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.roce4j.emulator.fabric.Fabric;
import org.roce4j.emulator.fabric.FrameFilter;
import org.roce4j.verbs.AccessFlag;
import org.roce4j.verbs.FlushLevel;
import org.roce4j.verbs.FlushType;
import org.roce4j.verbs.Mr;
import org.roce4j.verbs.Mtu;
import org.roce4j.verbs.QpAttr;
import org.roce4j.verbs.QpCap;
import org.roce4j.verbs.QpEx;
import org.roce4j.verbs.QpInitAttr;
import org.roce4j.verbs.QpInitAttrEx;
import org.roce4j.verbs.QpType;
import org.roce4j.verbs.SendFlag;
import org.roce4j.verbs.SendOpsFlag;
import org.roce4j.verbs.WcOpcode;
import org.roce4j.verbs.WcStatus;
import org.roce4j.verbs.WorkCompletion;
import org.roce4j.wire.DropReason;
import org.roce4j.wire.Opcode;
import org.roce4j.wire.PacketInfo;

/**
 * {@link Quirk#RC_FLUSH_ICRC_COUNTS_ITS_HEADERS_TWICE}: kernel 6.12's rxe puts on an RC FLUSH an ICRC that counts
 * its BTH, FETH and RETH twice, and drops a FLUSH that carries IBTA's. The rxe-6.12 profile's library has no
 * {@code ibv_wr_flush} (rdma-core 44), so the requesters here are the same kernel under a newer library.
 */
class FlushIcrcQuirkTest {
    /** Kernel 6.12's rxe with a library that has {@code ibv_wr_flush} (rdma-core 45 on). */
    static final DeviceModel RXE_6_12_FLUSHING = DeviceProfile.RXE_6_12.model().without(Quirk.PROVIDER_HAS_NO_WR_FLUSH);

    /** Copies of every RC FLUSH frame on the fabric, delivered unchanged. */
    private static final class FlushFrames implements FrameFilter {
        final List<byte[]> frames = new ArrayList<>();

        @Override
        public long deliveryTimeNanos(byte[] frame, int length, long transmitNanos, long nominalDeliveryNanos) {
            PacketInfo p = new PacketInfo();
            p.parseFrame(frame, 0, length); // the opcode is known whether or not the ICRC is IBTA's
            if (p.opcode() == Opcode.RC_FLUSH) {
                frames.add(Arrays.copyOf(frame, length));
            }
            return nominalDeliveryNanos;
        }
    }

    @Test
    @DisplayName("rxe-6.12 to rxe-6.12: a FLUSH completes; on the wire it carries rxe's ICRC, which an IBTA check "
            + "refuses (saying whose it is) and an rxe check accepts")
    void rxeToRxeFlushesWithRxesIcrc() {
        try (TwoNodes nodes = new TwoNodes(Fabric.deterministic(), RXE_6_12_FLUSHING, RXE_6_12_FLUSHING)) {
            FlushFrames flushes = new FlushFrames();
            nodes.fabric.filter(flushes);
            Mr region = nodes.b.pd.regMr(nodes.b.memory.asSlice(0, 65536), FlushTest.GLOBAL);
            QpEx qp = FlushTest.connectedEx(nodes);
            FlushTest.flush(qp, 1, region.rkey(), region.address(), 64, FlushType.GLOBAL, FlushLevel.RANGE);

            assertThat(nodes.a.pollAll()).extracting(WorkCompletion::status, WorkCompletion::opcode)
                    .containsExactly(tuple(WcStatus.SUCCESS, WcOpcode.FLUSH));
            assertThat(flushes.frames).hasSize(1);
            byte[] frame = flushes.frames.getFirst();
            PacketInfo ibta = new PacketInfo();
            assertThat(ibta.parseFrame(frame, 0, frame.length)).isFalse();
            assertThat(ibta.dropReason()).isEqualTo(DropReason.BAD_ICRC);
            assertThat(ibta.dropDetail()).contains("it is the ICRC Linux rxe puts on an RC FLUSH");
            PacketInfo rxe = new PacketInfo();
            rxe.flushIcrcAsRxe(true);
            assertThat(rxe.parseFrame(frame, 0, frame.length)).isTrue();
        }
    }

    @Test
    @DisplayName("rxe-6.12 requester, IBTA responder: the responder drops each FLUSH as a bad ICRC, the requester "
            + "retries it and fails RETRY_EXC_ERR")
    void anIbtaResponderDropsRxesFlush() {
        try (TwoNodes nodes = new TwoNodes(Fabric.deterministic(), RXE_6_12_FLUSHING, DeviceProfile.LINUX.model())) {
            assertFlushIsDroppedAsBadIcrc(nodes);
        }
    }

    @Test
    @DisplayName("IBTA requester, rxe-6.12 responder: rxe drops each FLUSH with IBTA's ICRC as a bad ICRC "
            + "(as rxe0 of 6.12 did in interop/flush), the requester retries it and fails RETRY_EXC_ERR")
    void rxeDropsAFlushWithIbtasIcrc() {
        try (TwoNodes nodes = new TwoNodes(Fabric.deterministic(), DeviceProfile.LINUX.model(), RXE_6_12_FLUSHING)) {
            assertFlushIsDroppedAsBadIcrc(nodes);
        }
    }

    @Test
    @DisplayName("The quirk touches RC FLUSH alone: a WRITE between rxe-6.12 and an IBTA device completes")
    void otherOpcodesKeepIbtasIcrc() {
        try (TwoNodes nodes = new TwoNodes(Fabric.deterministic(), RXE_6_12_FLUSHING, DeviceProfile.LINUX.model())) {
            QpEx qp = FlushTest.connectedEx(nodes);
            qp.wrStart();
            qp.wrId(1);
            qp.wrFlags(SendFlag.SIGNALED.bit());
            qp.wrRdmaWrite(nodes.b.mr.rkey(), nodes.b.mr.address());
            qp.wrSetSge(nodes.a.mr.lkey(), nodes.a.memory.address(), 3000);
            assertThat(qp.wrComplete()).isZero();
            assertThat(nodes.a.pollAll()).extracting(WorkCompletion::status).containsExactly(WcStatus.SUCCESS);
            assertThat(nodes.b.rnic.dropped(DropReason.BAD_ICRC)).isZero();
        }
    }

    /** Two retries (retry_cnt 2): three FLUSHes sent, three dropped by B, then RETRY_EXC_ERR. */
    private static void assertFlushIsDroppedAsBadIcrc(TwoNodes nodes) {
        Mr region = nodes.b.pd.regMr(nodes.b.memory.asSlice(0, 65536), EnumSet.of(AccessFlag.LOCAL_WRITE,
                AccessFlag.REMOTE_WRITE, AccessFlag.FLUSH_GLOBAL));
        QpEx qa = nodes.a.pd.createQpEx(new QpInitAttrEx(QpInitAttr.of(QpType.RC,
                nodes.a.cq, new QpCap(16, 16, 4, 4, 64)), EnumSet.of(SendOpsFlag.FLUSH)));
        var qb = nodes.b.createQp(QpType.RC, 16);
        TwoNodes.connect(qa, qb.qpNum(), nodes.b.gid(), 100, 200, Mtu.MTU_1024, rtr -> { }, rts -> rts.retryCnt(2));
        TwoNodes.connect(qb, qa.qpNum(), nodes.a.gid(), 200, 100, Mtu.MTU_1024);
        qb.modify(new QpAttr().qpAccessFlags(EnumSet.of(AccessFlag.REMOTE_WRITE, AccessFlag.FLUSH_GLOBAL)));
        FlushTest.flush(qa, 1, region.rkey(), region.address(), 64, FlushType.GLOBAL, FlushLevel.RANGE);
        nodes.fabric.runFor(Duration.ofSeconds(5));

        assertThat(nodes.a.pollAll()).extracting(WorkCompletion::status).containsExactly(WcStatus.RETRY_EXC_ERR);
        assertThat(nodes.b.rnic.dropped(DropReason.BAD_ICRC)).isEqualTo(3);
    }
}
