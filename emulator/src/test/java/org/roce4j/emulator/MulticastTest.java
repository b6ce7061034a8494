package org.roce4j.emulator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.roce4j.emulator.fabric.Fabric;
import org.roce4j.emulator.verbs.DeviceLimits;
import org.roce4j.verbs.Ah;
import org.roce4j.verbs.AhAttr;
import org.roce4j.verbs.Errno;
import org.roce4j.verbs.Gid;
import org.roce4j.verbs.Mtu;
import org.roce4j.verbs.Qp;
import org.roce4j.verbs.QpAttr;
import org.roce4j.verbs.QpCap;
import org.roce4j.verbs.QpInitAttr;
import org.roce4j.verbs.QpType;
import org.roce4j.verbs.RecvWr;
import org.roce4j.verbs.SendWr;
import org.roce4j.verbs.VerbsException;
import org.roce4j.verbs.WcFlag;
import org.roce4j.verbs.WcStatus;
import org.roce4j.verbs.WorkCompletion;
import org.roce4j.wire.Deth;
import org.roce4j.wire.Ipv4Header;
import org.roce4j.wire.MacAddress;
import org.roce4j.wire.RoceFrame;

/** UD multicast on the in-process fabric: ibv_attach_mcast / ibv_detach_mcast as rxe answers them, and delivery. */
class MulticastTest {
    private static final Gid GROUP = Gid.parse("::ffff:239.1.2.3");
    private static final Gid GROUP6 = Gid.parse("ff0e::1:2:3");
    private static final int QKEY = 0x11111111; // QpBringUp.pingpong's

    private static VerbsException thrown(Runnable call) {
        try {
            call.run();
        } catch (VerbsException e) {
            return e;
        }
        throw new AssertionError("no VerbsException");
    }

    @Test
    @DisplayName("ib_attach_mcast: a GID that is not multicast and a QP that is not UD are EINVAL; attaching twice is a no-op; "
            + "uverbs: detaching what is not attached is EINVAL, a QP with attachments is not destroyed (EBUSY)")
    void attachAndDetachErrnosAreLinuxs() {
        try (TwoNodes nodes = new TwoNodes()) {
            Qp ud = nodes.a.createQp(QpType.UD, 4);
            Qp rc = nodes.a.createQp(QpType.RC, 4);
            assertThat(thrown(() -> rc.attachMcast(GROUP, 0)).errno()).isEqualTo(Errno.EINVAL);
            assertThat(thrown(() -> ud.attachMcast(Gid.parse("::ffff:10.0.0.2"), 0)).errno()).isEqualTo(Errno.EINVAL);
            assertThat(thrown(() -> ud.detachMcast(GROUP, 0)).errno()).isEqualTo(Errno.EINVAL);
            ud.attachMcast(GROUP, 0);
            ud.attachMcast(GROUP, 0);
            assertThat(thrown(ud::close).errno()).isEqualTo(Errno.EBUSY);
            ud.detachMcast(GROUP, 0);
            assertThat(thrown(() -> ud.detachMcast(GROUP, 0)).errno()).isEqualTo(Errno.EINVAL);
            ud.close();
        }
    }

    @Test
    @DisplayName("rxe0 (6.1, 6.12): a second LID is a second uverbs attachment of one rxe member, so detaching it takes "
            + "the QP out of the group and the first LID's detach is then EINVAL (rxe_detach_mcast); the core's use "
            + "count of the QP then never returns to 0, so it cannot be destroyed (EBUSY, ib_destroy_qp_user)")
    void aSecondLidDetachedTakesTheQpOutOfTheGroup() {
        try (TwoNodes nodes = new TwoNodes()) {
            Qp ud = nodes.a.createQp(QpType.UD, 4);
            ud.attachMcast(GROUP, 0);
            ud.attachMcast(GROUP, 0xC001);
            ud.detachMcast(GROUP, 0xC001);
            assertThat(thrown(() -> ud.detachMcast(GROUP, 0xC001)).errno()).isEqualTo(Errno.EINVAL);
            assertThat(nodes.rnicA.rnic().multicast.groups()).isEmpty();
            assertThat(thrown(() -> ud.detachMcast(GROUP, 0)).errno()).isEqualTo(Errno.EINVAL);
            assertThat(thrown(ud::close).errno()).isEqualTo(Errno.EBUSY);
        }
    }

    @Test
    @DisplayName("rxe_mcast.c __rxe_init_mca: the 57th QP attached to one group is ENOMEM (max_mcast_qp_attach 56); "
            + "the group count and the total are ENOMEM past max_mcast_grp and max_total_mcast_qp_attach")
    void attachLimitsAreEnomem() {
        try (TwoNodes nodes = new TwoNodes()) {
            assertThat(nodes.a.context.queryDevice().maxMcastQpAttach()).isEqualTo(56);
            List<Qp> qps = new ArrayList<>();
            for (int i = 0; i < 57; i++) {
                qps.add(nodes.a.createQp(QpType.UD, 1));
            }
            for (int i = 0; i < 56; i++) {
                qps.get(i).attachMcast(GROUP, 0);
            }
            assertThat(thrown(() -> qps.get(56).attachMcast(GROUP, 0)).errno()).isEqualTo(Errno.ENOMEM);
        }
        DeviceLimits r = DeviceLimits.DEFAULT;
        DeviceLimits small = new DeviceLimits(r.maxQp(), r.maxQpWr(), r.maxSge(), r.maxSgeRd(), r.maxCq(), r.maxCqe(),
                r.maxMr(), r.maxPd(), r.maxQpRdAtom(), r.maxQpInitRdAtom(), r.maxResRdAtom(), r.maxMw(), 2, 56, 3,
                r.maxAh(), r.maxSrq(), r.maxSrqWr(), r.maxSrqSge(), r.maxPkeys(), r.localCaAckDelay(), r.maxInlineData(),
                r.pageSizeCap(), r.maxMrSize(), r.vendorId(), r.gidTableLength(), r.maxMsgSize(), r.pkeyTableLength(),
                r.portCapFlags(), r.activeWidth(), r.activeSpeed());
        try (Fabric fabric = Fabric.deterministic()) {
            SoftRnic node = SoftRnic.builder(fabric).name("small").mac(MacAddress.parse("02:00:00:00:00:09"))
                    .gids(List.of(Gid.parse("::ffff:10.0.0.9"))).profile(DeviceProfile.LINUX.model().withLimits(small)).attach();
            var context = node.device().open();
            var pd = context.allocPd();
            var cq = context.createCq(4);
            Qp q1 = pd.createQp(QpInitAttr.of(QpType.UD, cq, new QpCap(1, 1, 1, 1, 0)));
            Qp q2 = pd.createQp(QpInitAttr.of(QpType.UD, cq, new QpCap(1, 1, 1, 1, 0)));
            q1.attachMcast(Gid.parse("::ffff:239.0.0.1"), 0);
            q1.attachMcast(Gid.parse("::ffff:239.0.0.2"), 0);
            assertThat(thrown(() -> q1.attachMcast(Gid.parse("::ffff:239.0.0.3"), 0)).errno())
                    .as("a third group past max_mcast_grp 2").isEqualTo(Errno.ENOMEM);
            q2.attachMcast(Gid.parse("::ffff:239.0.0.1"), 0);
            assertThat(thrown(() -> q2.attachMcast(Gid.parse("::ffff:239.0.0.2"), 0)).errno())
                    .as("a fourth attachment past max_total_mcast_qp_attach 3").isEqualTo(Errno.ENOMEM);
        }
    }

    @Test
    @DisplayName("IBTA 10.5 / rxe_rcv_mcast_pkt: a UD SEND to DestQP 0xFFFFFF and group 239.1.2.3 reaches every attached QP "
            + "of every node once (the sender's node too), with the group in the GRH; a QP with another Q_Key drops it "
            + "(counted); the frame goes to MAC 01:00:5e:01:02:03; after detach the group's packets are dropped and counted")
    void aSendToAGroupReachesEveryAttachedQpOnce() {
        List<RoceFrame> frames;
        try (TwoNodes nodes = new TwoNodes()) {
            CapturedFrames capture = new CapturedFrames(nodes.fabric);
            Qp sender = nodes.a.createQp(QpType.UD, 8);
            Qp local = nodes.a.createQp(QpType.UD, 8);
            Qp remote1 = nodes.b.createQp(QpType.UD, 8);
            Qp remote2 = nodes.b.createQp(QpType.UD, 8);
            Qp otherQkey = nodes.b.createQp(QpType.UD, 8);
            Qp notAttached = nodes.b.createQp(QpType.UD, 8);
            for (Qp qp : List.of(sender, local, remote1, remote2, otherQkey, notAttached)) {
                TwoNodes.connect(qp, 0, null, 0, 0, Mtu.MTU_1024);
            }
            otherQkey.modify(new QpAttr().qkey(0x22222222));
            for (Qp qp : List.of(local, remote1, remote2, otherQkey)) {
                qp.attachMcast(GROUP, 0);
            }
            List<Qp> receivers = List.of(local, remote1, remote2, otherQkey, notAttached);
            for (int i = 0; i < receivers.size(); i++) {
                TwoNodes.Side side = i == 0 ? nodes.a : nodes.b;
                receivers.get(i).postRecv(RecvWr.of(10 + i, side.mr, 4096L * (i + 1), 256));
            }
            nodes.a.memory.set(ValueLayout.JAVA_LONG, 0, 0x0102030405060708L);
            Ah ah = nodes.a.pd.createAh(AhAttr.of(GROUP, 1, 1));
            sender.postSend(SendWr.send(1, nodes.a.mr, 0, 8).ud(ah, 0xFFFFFF, QKEY));
            assertThat(nodes.a.pollAll()).extracting(WorkCompletion::qpNum, WorkCompletion::status)
                    .containsExactlyInAnyOrder(tuple(sender.qpNum(), WcStatus.SUCCESS),
                            tuple(local.qpNum(), WcStatus.SUCCESS));
            List<WorkCompletion> atB = nodes.b.pollAll();
            assertThat(atB).extracting(WorkCompletion::qpNum).containsExactlyInAnyOrder(remote1.qpNum(), remote2.qpNum());
            assertThat(atB).allSatisfy(wc -> {
                assertThat(wc.byteLen()).isEqualTo(48);
                assertThat(wc.has(WcFlag.GRH)).isTrue();
                assertThat(wc.srcQp()).isEqualTo(sender.qpNum());
            });
            for (int i = 1; i <= 2; i++) {
                long grh = 4096L * (i + 1);
                assertThat(nodes.b.memory.asSlice(grh + 36, 4).toArray(ValueLayout.JAVA_BYTE))
                        .as("the GRH's destination: the group").containsExactly(239, 1, 2, 3);
                assertThat(nodes.b.memory.get(ValueLayout.JAVA_LONG, grh + 40)).isEqualTo(0x0102030405060708L);
            }
            assertThat(nodes.rnicB.counter(RnicCounter.DROPPED_QKEY_VIOLATION)).isEqualTo(1);

            for (Qp qp : List.of(local, remote1, remote2, otherQkey)) {
                qp.detachMcast(GROUP, 0);
            }
            sender.postSend(SendWr.send(2, nodes.a.mr, 0, 8).ud(ah, 0xFFFFFF, QKEY));
            assertThat(nodes.a.pollAll()).extracting(WorkCompletion::wrId).containsExactly(2L);
            assertThat(nodes.b.pollAll()).isEmpty();
            assertThat(nodes.rnicB.counter(RnicCounter.DROPPED_NO_MCAST_GROUP)).isEqualTo(1);
            assertThat(nodes.rnicA.counter(RnicCounter.DROPPED_NO_MCAST_GROUP)).isEqualTo(1);
            nodes.fabric.close();
            frames = capture.frames();
        }
        assertThat(frames).hasSize(2).allSatisfy(f -> {
            assertThat(f.ethernet().destination()).isEqualTo(MacAddress.parse("01:00:5e:01:02:03"));
            assertThat(((Ipv4Header) f.ip()).destination().getHostAddress()).isEqualTo("239.1.2.3");
            assertThat(f.packet().bth().destQp()).isEqualTo(0xFFFFFF);
            assertThat(f.packet().headers()).filteredOn(Deth.class::isInstance).singleElement()
                    .extracting(h -> ((Deth) h).qkey()).isEqualTo(QKEY);
        });
    }

    @Test
    @DisplayName("RFC 2464 §7: a SEND to IPv6 group ff0e::1:2:3 goes to MAC 33:33:00:02:00:03 (its low 32 bits) and reaches the attached QP")
    void anIpv6GroupIsReachedThroughItsMac() {
        List<RoceFrame> frames;
        try (TwoNodes nodes = new TwoNodes()) {
            CapturedFrames capture = new CapturedFrames(nodes.fabric);
            Qp[] pair = nodes.connectedPair(QpType.UD, Mtu.MTU_1024);
            pair[1].attachMcast(GROUP6, 0);
            pair[1].postRecv(RecvWr.of(1, nodes.b.mr, 0, 256));
            Ah ah = nodes.a.pd.createAh(AhAttr.of(GROUP6, 0, 1));
            pair[0].postSend(SendWr.send(1, nodes.a.mr, 0, 8).ud(ah, 0xFFFFFF, QKEY));
            assertThat(nodes.b.pollAll()).extracting(WorkCompletion::byteLen).containsExactly(48);
            assertThat(Gid.of(nodes.b.memory.asSlice(24, 16).toArray(ValueLayout.JAVA_BYTE))).isEqualTo(GROUP6);
            nodes.fabric.close();
            frames = capture.frames();
        }
        assertThat(frames).singleElement().satisfies(f ->
                assertThat(f.ethernet().destination()).isEqualTo(MacAddress.parse("33:33:00:02:00:03")));
    }

    @Test
    @DisplayName("rxe_recv.c hdr_check: a SEND to a group with a unicast DestQP goes to that QP, attached or not")
    void aUnicastDestQpToAGroupAddressGoesToThatQp() {
        try (TwoNodes nodes = new TwoNodes()) {
            Qp[] pair = nodes.connectedPair(QpType.UD, Mtu.MTU_1024);
            pair[1].postRecv(RecvWr.of(1, nodes.b.mr, 0, 256));
            Ah ah = nodes.a.pd.createAh(AhAttr.of(GROUP, 1, 1));
            pair[0].postSend(SendWr.send(1, nodes.a.mr, 0, 8).ud(ah, pair[1].qpNum(), QKEY));
            assertThat(nodes.b.pollAll()).extracting(WorkCompletion::qpNum).containsExactly(pair[1].qpNum());
        }
    }

    @Test
    @DisplayName("The default profile reports rxe's multicast limits: max_mcast_grp 8192, 56 QPs each, 458752 in all")
    void theDefaultProfileReportsRxesMulticastLimits() {
        try (TwoNodes nodes = new TwoNodes()) {
            var attr = nodes.a.context.queryDevice();
            assertThat(List.of(attr.maxMcastGrp(), attr.maxMcastQpAttach(), attr.maxTotalMcastQpAttach()))
                    .containsExactly(8192, 56, 458752);
        }
    }

    @Test
    @DisplayName("Destroying a QP needs its attachments gone first; a closed QP's attach is EINVAL like any verb on it")
    void closedQpCannotAttach() {
        try (TwoNodes nodes = new TwoNodes()) {
            Qp ud = nodes.a.createQp(QpType.UD, 4);
            ud.close();
            assertThatThrownBy(() -> ud.attachMcast(GROUP, 0)).isInstanceOf(VerbsException.class);
        }
    }
}
