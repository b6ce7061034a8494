package org.roce4j.emulator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.foreign.MemorySegment;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.roce4j.verbs.AccessFlag;
import org.roce4j.verbs.AhAttr;
import org.roce4j.verbs.BadWorkRequestException;
import org.roce4j.verbs.Context;
import org.roce4j.verbs.Cq;
import org.roce4j.verbs.DeviceAttr;
import org.roce4j.verbs.Errno;
import org.roce4j.verbs.Gid;
import org.roce4j.verbs.Mr;
import org.roce4j.verbs.Mtu;
import org.roce4j.verbs.Pd;
import org.roce4j.verbs.PortAttr;
import org.roce4j.verbs.Qp;
import org.roce4j.verbs.QpAttr;
import org.roce4j.verbs.QpAttrMask;
import org.roce4j.verbs.QpCap;
import org.roce4j.verbs.QpInitAttr;
import org.roce4j.verbs.QpState;
import org.roce4j.verbs.QpType;
import org.roce4j.verbs.SendWr;
import org.roce4j.verbs.Verbs;
import org.roce4j.verbs.VerbsException;
import org.roce4j.verbs.WrOpcode;
import org.roce4j.wire.MacAddress;

class ControlPlaneTest {
    private final TwoNodes nodes = new TwoNodes();
    private final TwoNodes.Side a = nodes.a;

    @AfterEach
    void close() {
        nodes.close();
    }

    private static void assertErrno(Errno errno, ThrowingCallable call) {
        assertThatThrownBy(call).isInstanceOfSatisfying(VerbsException.class, e -> assertThat(e.errno()).isEqualTo(errno));
    }

    @Test
    @DisplayName("the provider is registered and lists rxe0 and rxe1")
    void provider() {
        assertThat(Verbs.provider(EmulatorProvider.NAME)).isPresent();
        assertThat(new EmulatorProvider().devices()).extracting(d -> d.name()).containsExactly("rxe0", "rxe1");
    }

    @Test
    @DisplayName("device and port attributes are rxe's")
    void attributes() {
        DeviceAttr device = a.context.queryDevice();
        assertThat(device.maxQpWr()).isEqualTo(1 << 20);
        assertThat(device.maxSge()).isEqualTo(32);
        assertThat(device.maxCqe()).isEqualTo(32767);
        assertThat(device.maxQpRdAtom()).isEqualTo(128);
        assertThat(device.atomicCap()).isEqualTo(DeviceAttr.AtomicCapability.HCA);
        assertThat(device.nodeGuid()).isEqualTo(0x000000fffe000001L).isEqualTo(a.context.device().guid());
        PortAttr port = a.context.queryPort(1);
        assertThat(port.state()).isEqualTo(PortAttr.PortState.ACTIVE);
        assertThat(port.linkLayer()).isEqualTo(PortAttr.LinkLayer.ETHERNET);
        assertThat(port.maxMtu()).isEqualTo(Mtu.MTU_4096);
        assertThat(port.activeMtu()).isEqualTo(Mtu.MTU_1024);
        assertErrno(Errno.EINVAL, () -> a.context.queryPort(2));
    }

    @Test
    @DisplayName("GID 0 is fe80:: with the MAC's EUI-64, GID 1 the IPv4 address; empty entries are EINVAL")
    void gids() {
        assertThat(a.context.queryGid(1, 0)).isEqualTo(Gid.parse("fe80::ff:fe00:1"));
        assertThat(a.context.queryGid(1, 1)).isEqualTo(Gid.parse("::ffff:10.0.0.1"));
        assertErrno(Errno.EINVAL, () -> a.context.queryGid(1, 2));
        assertErrno(Errno.EINVAL, () -> a.context.queryGid(1, 1024));
    }

    @Test
    @DisplayName("EBUSY while children live: context/PD/CQ")
    void busyParents() {
        Qp qp = a.createQp(QpType.RC, 4);
        assertErrno(Errno.EBUSY, a.context::close);
        assertErrno(Errno.EBUSY, a.pd::close);
        assertErrno(Errno.EBUSY, a.cq::close);
        qp.close();
        a.cq.close();
        assertErrno(Errno.EBUSY, a.pd::close);
        a.mr.close();
        a.pd.close();
        a.context.close();
        assertErrno(Errno.EINVAL, a.context::allocPd);
    }

    @Test
    @DisplayName("ibv_reg_mr: o10-26 remote write needs local write; heap and empty segments are EINVAL")
    void regMrChecks() {
        Pd pd = a.pd;
        MemorySegment native8 = nodes.arena.allocate(8);
        assertErrno(Errno.EINVAL, () -> pd.regMr(native8, EnumSet.of(AccessFlag.REMOTE_WRITE)));
        assertErrno(Errno.EINVAL, () -> pd.regMr(native8, EnumSet.of(AccessFlag.REMOTE_ATOMIC)));
        assertErrno(Errno.EINVAL, () -> pd.regMr(MemorySegment.ofArray(new byte[8]), Set.of()));
        assertErrno(Errno.EINVAL, () -> pd.regMr(native8.asSlice(0, 0), Set.of()));
        Mr mr = pd.regMr(native8, EnumSet.of(AccessFlag.REMOTE_READ));
        assertThat(mr.rkey()).isEqualTo(mr.lkey());
        mr.close();
        mr.close(); // closing twice does nothing
    }

    @Test
    @DisplayName("create limits: cqe in 1..max_cqe, QP caps within the device's")
    void createLimits() {
        assertErrno(Errno.EINVAL, () -> a.context.createCq(0));
        assertErrno(Errno.EINVAL, () -> a.context.createCq(32768));
        assertErrno(Errno.EINVAL, () -> a.pd.createQp(QpInitAttr.of(QpType.RC, a.cq, QpCap.of((1 << 20) + 1, 1))));
        assertErrno(Errno.EINVAL, () -> a.pd.createQp(QpInitAttr.of(QpType.RC, a.cq, new QpCap(1, 1, 33, 1, 0))));
        assertErrno(Errno.EINVAL, () -> a.pd.createQp(QpInitAttr.of(QpType.RC, a.cq, new QpCap(1, 1, 1, 1, 401))));
        assertErrno(Errno.EINVAL, () -> a.pd.createQp(QpInitAttr.of(QpType.RC, null, QpCap.of(1, 1))));
    }

    @Test
    @DisplayName("uverbs modify_qp: a controlled Q_Key (bit 31) is EPERM by default, granted by SoftRnic.Builder.capNetRaw")
    void controlledQkeyNeedsCapNetRaw() throws Exception {
        QpAttr init = new QpAttr().qpState(QpState.INIT).pkeyIndex(0).portNum(1).qkey(0x80000001);
        Qp unprivileged = a.createQp(QpType.UD, 4);
        assertErrno(Errno.EPERM, () -> unprivileged.modify(init));
        assertThat(unprivileged.state()).isEqualTo(QpState.RESET);

        SoftRnic privileged = SoftRnic.builder(nodes.fabric).name("rxe2").mac(MacAddress.parse("02:00:00:00:00:03"))
                .ipv4((Inet4Address) InetAddress.getByName("10.0.0.3")).capNetRaw(true).attach();
        try (Context context = privileged.device().open()) {
            Pd pd = context.allocPd();
            Cq cq = context.createCq(4);
            Qp qp = pd.createQp(QpInitAttr.of(QpType.UD, cq, QpCap.of(4, 4)));
            qp.modify(init);
            assertThat(qp.query(Set.of(QpAttrMask.QKEY)).qkey()).isEqualTo(0x80000001);
            qp.close();
            cq.close();
            pd.close();
        }
    }

    @Test
    @DisplayName("modify: the QpTransitions table and attribute ranges decide, EINVAL otherwise; query reports all")
    void modifyChecks() {
        Qp qp = a.createQp(QpType.RC, 4);
        assertErrno(Errno.EINVAL, () -> qp.modify(new QpAttr().qpState(QpState.RTR)));
        assertErrno(Errno.EINVAL, () -> qp.modify(new QpAttr().qpState(QpState.INIT).pkeyIndex(0).portNum(1)));
        assertErrno(Errno.EINVAL, () -> qp.modify(new QpAttr().qpState(QpState.INIT).pkeyIndex(0).portNum(2)
                .qpAccessFlags(Set.of())));
        qp.modify(new QpAttr().qpState(QpState.INIT).pkeyIndex(0).portNum(1).qpAccessFlags(Set.of()));
        // A PSN wider than 24 bits is masked, not refused (psnsWiderThan24BitsAreMasked in the conformance suite).
        QpAttr rtr = new QpAttr().qpState(QpState.RTR).pathMtu(Mtu.MTU_2048).destQpNum(99).rqPsn(5)
                .ahAttr(AhAttr.of(nodes.b.gid(), 7, 1)).maxDestRdAtomic(4).minRnrTimer(1);
        assertErrno(Errno.EINVAL, () -> qp.modify(rtr));
        rtr.ahAttr(AhAttr.of(nodes.b.gid(), 1, 1)).maxDestRdAtomic(129);
        assertErrno(Errno.EINVAL, () -> qp.modify(rtr));
        rtr.maxDestRdAtomic(4);
        qp.modify(rtr);
        QpAttr rts = new QpAttr().qpState(QpState.RTS).sqPsn(7).timeout(32).retryCnt(7).rnrRetry(7).maxRdAtomic(1);
        assertErrno(Errno.EINVAL, () -> qp.modify(rts));
        rts.timeout(14).retryCnt(8);
        assertErrno(Errno.EINVAL, () -> qp.modify(rts));
        rts.retryCnt(7);
        qp.modify(rts);
        QpAttr q = qp.query(EnumSet.allOf(QpAttrMask.class));
        assertThat(q.qpState()).isEqualTo(QpState.RTS);
        assertThat(q.pathMtu()).isEqualTo(Mtu.MTU_2048);
        assertThat(q.destQpNum()).isEqualTo(99);
        assertThat(q.rqPsn()).isEqualTo(5);
        assertThat(q.sqPsn()).isEqualTo(7);
        assertThat(q.timeout()).isEqualTo(14);
        assertThat(q.maxDestRdAtomic()).isEqualTo(4);
        assertThat(q.ahAttr().dgid()).isEqualTo(nodes.b.gid());
    }

    @Test
    @DisplayName("post_send: EINVAL before RTS, bad opcode for the type, too many SGEs, too much inline; ENOMEM when full; the index of the bad WR")
    void postSendChecks() {
        Qp qp = a.createQp(QpType.RC, 2);
        assertThatThrownBy(() -> qp.postSend(SendWr.send(1, a.mr, 0, 8))).isInstanceOfSatisfying(
                BadWorkRequestException.class, e -> assertThat(e.errno()).isEqualTo(Errno.EINVAL));
        TwoNodes.connect(qp, 1234, nodes.b.gid(), 1, 1, Mtu.MTU_1024);
        SendWr tooManySges = SendWr.send(2, a.mr, 0, 8);
        for (int i = 0; i < 4; i++) {
            tooManySges.sge(a.mr, 0, 8);
        }
        assertThatThrownBy(() -> qp.postSend(List.of(SendWr.send(1, a.mr, 0, 8), tooManySges)))
                .isInstanceOfSatisfying(BadWorkRequestException.class, e -> {
                    assertThat(e.errno()).isEqualTo(Errno.EINVAL);
                    assertThat(e.index()).isEqualTo(1);
                    assertThat(e.wrId()).isEqualTo(2);
                });
        assertErrno(Errno.EINVAL, () -> qp.postSend(SendWr.send(3, a.mr, 0, 65).inline(true)));
        qp.postSend(SendWr.send(4, a.mr, 0, 64).inline(true));
        assertErrno(Errno.ENOMEM, () -> qp.postSend(SendWr.send(5, a.mr, 0, 8)));

        Qp ud = a.createQp(QpType.UD, 2);
        TwoNodes.connect(ud, 0, null, 1, 1, Mtu.MTU_1024);
        assertErrno(Errno.EINVAL, () -> ud.postSend(SendWr.rdmaWrite(6, a.mr, 0, 8, 0, 0))); // no AH; the opcode alone is posted
        assertErrno(Errno.EINVAL, () -> ud.postSend(SendWr.send(7, a.mr, 0, 8))); // no address handle
        assertThat(WrOpcode.RDMA_READ.isAllowedOn(QpType.UC)).isFalse();
    }

    @Test
    @DisplayName("use after close is EINVAL")
    void useAfterClose() {
        Qp qp = a.createQp(QpType.RC, 2);
        qp.close();
        assertErrno(Errno.EINVAL, qp::state);
        assertErrno(Errno.EINVAL, () -> qp.modify(new QpAttr().qpState(QpState.INIT)));
        assertErrno(Errno.EINVAL, () -> qp.postSend(SendWr.send(1, a.mr, 0, 8)));
    }
}
