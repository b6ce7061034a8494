package org.roce4j.emulator;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.ValueLayout;
import java.util.List;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.roce4j.emulator.fabric.Fabric;
import org.roce4j.verbs.Ah;
import org.roce4j.verbs.AhAttr;
import org.roce4j.verbs.Mr;
import org.roce4j.verbs.Mtu;
import org.roce4j.verbs.Pd;
import org.roce4j.verbs.Qp;
import org.roce4j.verbs.QpCap;
import org.roce4j.verbs.QpInitAttr;
import org.roce4j.verbs.QpState;
import org.roce4j.verbs.QpType;
import org.roce4j.verbs.RecvWr;
import org.roce4j.verbs.SendWr;
import org.roce4j.verbs.Srq;
import org.roce4j.verbs.SrqInitAttr;
import org.roce4j.verbs.WcStatus;
import org.roce4j.verbs.WorkCompletion;
import org.roce4j.verbs.WrOpcode;
import org.roce4j.wire.Ipv4Header;

/**
 * The responder's rules where rxe departs from the default: what a receive that cannot take its message
 * completes with, whose PD checks an SRQ's buffers, what a failed SEND_WITH_INV does, a UD datagram too
 * long, the GRH of a loopback datagram. Each runs under the rxe profile(s) with the quirk and under
 * {@link DeviceProfile#LINUX}, which has none.
 */
class ResponderQuirksTest {

    /** Polls everything the side's CQ holds: the statuses, oldest first. */
    static List<WcStatus> statuses(TwoNodes.Side side) {
        return side.pollAll().stream().map(WorkCompletion::status).toList();
    }

    private static boolean rxe(DeviceProfile profile) {
        return profile != DeviceProfile.LINUX;
    }

    @OnEveryProfile
    @DisplayName("RC SEND of 65 bytes into 64: LOC_LEN_ERR / REM_INV_REQ_ERR (IBTA 11.6.2); rxe's malformed WQE "
            + "(send_data_in, class A): LOC_QP_OP_ERR / REM_OP_ERR")
    void receiveBufferErrorsAreLocQpOpErr(DeviceProfile profile) {
        try (TwoNodes nodes = new TwoNodes(Fabric.deterministic(), profile)) {
            Qp[] pair = nodes.connectedPair(QpType.RC, Mtu.MTU_1024);
            pair[1].postRecv(RecvWr.of(10, nodes.b.mr, 0, 64));
            pair[0].postSend(SendWr.send(20, nodes.a.mr, 0, 65));
            assertThat(statuses(nodes.a)).containsExactly(rxe(profile) ? WcStatus.REM_OP_ERR : WcStatus.REM_INV_REQ_ERR);
            assertThat(statuses(nodes.b)).containsExactly(rxe(profile) ? WcStatus.LOC_QP_OP_ERR : WcStatus.LOC_LEN_ERR);
            assertThat(pair[1].state()).isEqualTo(QpState.ERR);
        }
    }

    @OnEveryProfile
    @DisplayName("a QP on an SRQ of another PD: the buffer is checked against the SRQ's PD (rdmavt init_sge) and "
            + "the SEND lands; rxe checks the QP's PD (copy_data(qp->pd)): LOC_QP_OP_ERR / REM_OP_ERR")
    void receiveBuffersCheckedAgainstTheQpsPd(DeviceProfile profile) {
        try (TwoNodes nodes = new TwoNodes(Fabric.deterministic(), profile)) {
            Pd srqPd = nodes.b.context.allocPd();
            Srq srq = srqPd.createSrq(new SrqInitAttr(4, 1, 0));
            Qp qa = nodes.a.createQp(QpType.RC, 16);
            Qp qb = nodes.b.pd.createQp(QpInitAttr.of(QpType.RC, nodes.b.cq, QpCap.of(4, 0)).withSrq(srq));
            TwoNodes.connect(qa, qb.qpNum(), nodes.b.gid(), 100, 200, Mtu.MTU_1024);
            TwoNodes.connect(qb, qa.qpNum(), nodes.a.gid(), 200, 100, Mtu.MTU_1024);
            Mr dst = srqPd.regMr(nodes.b.memory.asSlice(8192, 64), TwoNodes.ALL_ACCESS);
            srq.postRecv(RecvWr.of(10, dst, 0, 64));
            qa.postSend(SendWr.send(20, nodes.a.mr, 0, 48));
            assertThat(statuses(nodes.b)).containsExactly(rxe(profile) ? WcStatus.LOC_QP_OP_ERR : WcStatus.SUCCESS);
            assertThat(statuses(nodes.a)).containsExactly(rxe(profile) ? WcStatus.REM_OP_ERR : WcStatus.SUCCESS);
        }
    }

    @OnEveryProfile
    @DisplayName("SEND_WITH_INV naming an ibv_reg_mr region: both SUCCESS, the region invalidated; rxe (MWs and "
            + "fast-reg MRs only, class J): requester SUCCESS, receive REM_INV_REQ_ERR, responder QP in ERR")
    void sendWithInvalidateOfOrdinaryMr(DeviceProfile profile) {
        try (TwoNodes nodes = new TwoNodes(Fabric.deterministic(), profile)) {
            Qp[] pair = nodes.connectedPair(QpType.RC, Mtu.MTU_1024);
            pair[1].postRecv(RecvWr.of(10, nodes.b.mr, 0, 64));
            pair[0].postSend(SendWr.send(1, nodes.a.mr, 0, 16).opcode(WrOpcode.SEND_WITH_INV)
                    .invalidateRkey(nodes.b.mr.rkey()));
            assertThat(statuses(nodes.a)).containsExactly(WcStatus.SUCCESS);
            assertThat(statuses(nodes.b)).containsExactly(rxe(profile) ? WcStatus.REM_INV_REQ_ERR : WcStatus.SUCCESS);
            assertThat(pair[1].state()).isEqualTo(rxe(profile) ? QpState.ERR : QpState.RTS);
        }
    }

    @ParameterizedTest
    @EnumSource(value = DeviceProfile.class, names = {"LINUX", "RXE_6_12"})
    @DisplayName("SEND_WITH_INV of an rkey that names nothing: NAK invalid request (REM_INV_REQ_ERR at the "
            + "requester); rxe's class J ACKs it (requester SUCCESS), the receive REM_INV_REQ_ERR either way")
    void failedSendInvalidateIsAcknowledged(DeviceProfile profile) {
        try (TwoNodes nodes = new TwoNodes(Fabric.deterministic(), profile)) {
            Qp[] pair = nodes.connectedPair(QpType.RC, Mtu.MTU_1024);
            pair[1].postRecv(RecvWr.of(10, nodes.b.mr, 0, 64));
            pair[0].postSend(SendWr.send(1, nodes.a.mr, 0, 16).opcode(WrOpcode.SEND_WITH_INV)
                    .invalidateRkey(nodes.b.mr.rkey() ^ 0x55));
            assertThat(statuses(nodes.a)).containsExactly(rxe(profile) ? WcStatus.SUCCESS : WcStatus.REM_INV_REQ_ERR);
            assertThat(statuses(nodes.b)).containsExactly(WcStatus.REM_INV_REQ_ERR);
            assertThat(pair[1].state()).isEqualTo(QpState.ERR);
        }
    }

    @OnEveryProfile
    @DisplayName("a UD datagram longer than the receive buffer: dropped and counted, the QP in RTS (class D, as "
            + "rxe 6.12's check_length); rxe 6.1 fails the receive LOC_QP_OP_ERR and the QP goes to ERR")
    void udDatagramTooLongFailsTheReceiveOnRxe61(DeviceProfile profile) {
        try (TwoNodes nodes = new TwoNodes(Fabric.deterministic(), profile)) {
            Qp[] pair = nodes.connectedPair(QpType.UD, Mtu.MTU_1024);
            pair[1].postRecv(RecvWr.of(10, nodes.b.mr, 0, 40 + 32));
            Ah ah = nodes.a.pd.createAh(AhAttr.of(nodes.b.gid(), 1, 1));
            pair[0].postSend(SendWr.send(20, nodes.a.mr, 0, 64).ud(ah, pair[1].qpNum(), 0x11111111));
            assertThat(statuses(nodes.a)).containsExactly(WcStatus.SUCCESS);
            boolean fails = profile == DeviceProfile.RXE_6_1;
            assertThat(statuses(nodes.b)).isEqualTo(fails ? List.of(WcStatus.LOC_QP_OP_ERR) : List.of());
            assertThat(pair[1].state()).isEqualTo(fails ? QpState.ERR : QpState.RTS);
            assertThat(nodes.rnicB.counter(RnicCounter.DROPPED_UD_TOO_LONG)).isEqualTo(fails ? 0 : 1);
        }
    }

    @OnEveryProfile
    @DisplayName("UD GRH: the IPv4 header's checksum verifies; on rxe it does not for a datagram looped back "
            + "inside one device (rxe_loopback skips ip_local_out), and does between two devices")
    void loopbackIpv4ChecksumNotComputed(DeviceProfile profile) {
        try (TwoNodes nodes = new TwoNodes(Fabric.deterministic(), profile)) {
            Qp sender = nodes.a.createQp(QpType.UD, 16);
            Qp sameDevice = nodes.a.createQp(QpType.UD, 16);
            Qp otherDevice = nodes.b.createQp(QpType.UD, 16);
            for (Qp qp : List.of(sender, sameDevice, otherDevice)) {
                TwoNodes.connect(qp, 0, null, 0, 0, Mtu.MTU_1024);
            }
            sameDevice.postRecv(RecvWr.of(1, nodes.a.mr, 8192, 1024));
            otherDevice.postRecv(RecvWr.of(2, nodes.b.mr, 8192, 1024));
            Ah toSelf = nodes.a.pd.createAh(AhAttr.of(nodes.a.gid(), 1, 1));
            Ah toB = nodes.a.pd.createAh(AhAttr.of(nodes.b.gid(), 1, 1));
            sender.postSend(SendWr.send(3, nodes.a.mr, 0, 16).ud(toSelf, sameDevice.qpNum(), 0x11111111));
            sender.postSend(SendWr.send(4, nodes.a.mr, 0, 16).ud(toB, otherDevice.qpNum(), 0x11111111));
            assertThat(nodes.a.pollAll()).extracting(WorkCompletion::wrId).containsExactlyInAnyOrder(1L, 3L, 4L);
            assertThat(nodes.b.pollAll()).extracting(WorkCompletion::wrId).containsExactly(2L);
            assertThat(grhChecksumVerifies(nodes.a.memory, 8192)).isEqualTo(!rxe(profile));
            assertThat(grhChecksumVerifies(nodes.b.memory, 8192)).isTrue();
        }
    }

    /** The IPv4 header sits in bytes 20..39 of the GRH (IBTA 11.4.1.2, RoCEv2 A17.4.5.1). */
    private static boolean grhChecksumVerifies(java.lang.foreign.MemorySegment memory, long grhAt) {
        byte[] header = memory.asSlice(grhAt + 20, 20).toArray(ValueLayout.JAVA_BYTE);
        return Ipv4Header.checksum(header, 0) == 0;
    }
}
