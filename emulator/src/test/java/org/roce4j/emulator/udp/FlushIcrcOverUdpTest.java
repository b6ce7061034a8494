package org.roce4j.emulator.udp;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.EnumSet;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.roce4j.emulator.DeviceModel;
import org.roce4j.emulator.DeviceProfile;
import org.roce4j.emulator.Quirk;
import org.roce4j.verbs.AccessFlag;
import org.roce4j.verbs.FlushLevel;
import org.roce4j.verbs.FlushType;
import org.roce4j.verbs.Mr;
import org.roce4j.verbs.Mtu;
import org.roce4j.verbs.Qp;
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

/**
 * {@link Quirk#RC_FLUSH_ICRC_COUNTS_ITS_HEADERS_TWICE} over real sockets: the UDP link's ICRC check (which solves
 * for the IPv4 Identification over the CRC's whole input) follows the device's way of computing an RC FLUSH's ICRC.
 */
class FlushIcrcOverUdpTest {
    /** Kernel 6.12's rxe with a library that has {@code ibv_wr_flush} (rdma-core 45 on). */
    private static final DeviceModel RXE_6_12_FLUSHING = DeviceProfile.RXE_6_12.model().without(Quirk.PROVIDER_HAS_NO_WR_FLUSH);

    @Test
    @DisplayName("rxe-6.12 to rxe-6.12 over UDP: the FLUSH's ICRC, counted rxe's way, passes the link's check and the "
            + "FLUSH completes")
    void rxeToRxe() throws Exception {
        try (UdpSide a = new UdpSide("rxe0", "127.0.0.91", RXE_6_12_FLUSHING);
             UdpSide b = new UdpSide("rxe1", "127.0.0.92", RXE_6_12_FLUSHING)) {
            WorkCompletion wc = flushOnce(a, b);
            assertThat(wc.status()).isEqualTo(WcStatus.SUCCESS);
            assertThat(wc.opcode()).isEqualTo(WcOpcode.FLUSH);
            assertThat(b.rnic.linkCounters().icrcInvalid()).isZero();
        }
    }

    @Test
    @DisplayName("IBTA requester to rxe-6.12 over UDP: rxe's link refuses each FLUSH's ICRC; after two retries the "
            + "requester fails RETRY_EXC_ERR")
    void ibtaToRxe() throws Exception {
        try (UdpSide a = new UdpSide("rxe0", "127.0.0.93", DeviceProfile.LINUX.model());
             UdpSide b = new UdpSide("rxe1", "127.0.0.94", RXE_6_12_FLUSHING)) {
            assertThat(flushOnce(a, b).status()).isEqualTo(WcStatus.RETRY_EXC_ERR);
            assertThat(b.rnic.linkCounters().icrcInvalid()).isEqualTo(3);
        }
    }

    /** A FLUSH from A to a region of B, retry_cnt 2, timeout 14 (about 67 ms); B's QP holds the FLUSH right. */
    private static WorkCompletion flushOnce(UdpSide a, UdpSide b) {
        Mr region = b.pd.regMr(b.memory.asSlice(0, 65536), EnumSet.of(AccessFlag.LOCAL_WRITE, AccessFlag.FLUSH_GLOBAL));
        QpEx qa = a.pd.createQpEx(new QpInitAttrEx(QpInitAttr.of(QpType.RC, a.cq, new QpCap(16, 16, 4, 4, 64)),
                EnumSet.of(SendOpsFlag.FLUSH)));
        Qp qb = b.createQp(QpType.RC, 16);
        UdpSide.connect(qa, qb.qpNum(), b.gid(), 100, 200, Mtu.MTU_1024, rts -> rts.retryCnt(2));
        UdpSide.connect(qb, qa.qpNum(), a.gid(), 200, 100, Mtu.MTU_1024, rts -> { });
        qb.modify(new QpAttr().qpAccessFlags(EnumSet.of(AccessFlag.REMOTE_WRITE, AccessFlag.FLUSH_GLOBAL)));
        qa.wrStart();
        qa.wrId(1);
        qa.wrFlags(SendFlag.SIGNALED.bit());
        qa.wrFlush(region.rkey(), region.address(), 64, FlushType.GLOBAL, FlushLevel.RANGE);
        assertThat(qa.wrComplete()).isZero();
        return a.pollOne();
    }
}
