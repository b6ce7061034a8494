package org.roce4j.emulator;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;

import java.lang.foreign.Arena;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.roce4j.emulator.fabric.Fabric;
import org.roce4j.verbs.Ah;
import org.roce4j.verbs.Context;
import org.roce4j.verbs.Cq;
import org.roce4j.verbs.Gid;
import org.roce4j.verbs.Mr;
import org.roce4j.verbs.Pd;
import org.roce4j.verbs.QpCap;
import org.roce4j.verbs.QpInitAttr;
import org.roce4j.wire.MacAddress;
import org.roce4j.verbs.AhAttr;
import org.roce4j.verbs.Mtu;
import org.roce4j.verbs.Qp;
import org.roce4j.verbs.QpAttr;
import org.roce4j.verbs.QpBringUp;
import org.roce4j.verbs.QpState;
import org.roce4j.verbs.QpType;
import org.roce4j.verbs.RecvWr;
import org.roce4j.verbs.SendWr;
import org.roce4j.verbs.WcStatus;
import org.roce4j.verbs.WorkCompletion;
import org.roce4j.wire.Ipv6Header;
import org.roce4j.wire.RoceFrame;

/** GID 0 (fe80:: from the MAC) as the source GID: RoCEv2 over IPv6, with the UDP checksum IPv6 requires. */
class Ipv6PathTest {

    @Test
    @DisplayName("RC over IPv6 link-local GIDs; UD's GRH is the 40-byte IPv6 header")
    void rcAndUdOverIpv6() {
        List<RoceFrame> frames;
        try (TwoNodes nodes = new TwoNodes()) {
            CapturedFrames capture = new CapturedFrames(nodes.fabric);
            var a = nodes.a;
            var b = nodes.b;
            Qp qa = a.createQp(QpType.RC, 4);
            Qp qb = b.createQp(QpType.RC, 4);
            connectOverGid0(qa, qb.qpNum(), b.context.queryGid(1, 0));
            connectOverGid0(qb, qa.qpNum(), a.context.queryGid(1, 0));
            a.memory.set(ValueLayout.JAVA_LONG, 0, 0x0102030405060708L);
            qb.postRecv(RecvWr.of(1, b.mr, 0, 64));
            qa.postSend(SendWr.send(1, a.mr, 0, 8));
            assertThat(a.pollAll()).extracting(WorkCompletion::status).containsExactly(WcStatus.SUCCESS);
            assertThat(b.pollAll()).extracting(WorkCompletion::byteLen).containsExactly(8);
            assertThat(b.memory.get(ValueLayout.JAVA_LONG, 0)).isEqualTo(0x0102030405060708L);

            Qp[] ud = nodes.connectedPair(QpType.UD, Mtu.MTU_1024);
            Ah ah = a.pd.createAh(AhAttr.of(b.context.queryGid(1, 0), 0, 1));
            ud[1].postRecv(RecvWr.of(2, b.mr, 4096, 256));
            ud[0].postSend(SendWr.send(2, a.mr, 0, 8).ud(ah, ud[1].qpNum(), 0x11111111));
            assertThat(b.pollAll()).extracting(WorkCompletion::byteLen).containsExactly(48);
            MemorySegment grh = b.memory.asSlice(4096, 40);
            assertThat(grh.get(ValueLayout.JAVA_BYTE, 0) >>> 4).isEqualTo(6);
            assertThat(grh.get(ValueLayout.JAVA_BYTE, 6)).isEqualTo((byte) 17);
            nodes.fabric.close();
            frames = capture.frames();
        }
        assertThat(frames).isNotEmpty().allSatisfy(f -> {
            assertThat(f.ip()).isInstanceOf(Ipv6Header.class);
            assertThat(f.udp().checksum()).isNotZero();
        });
    }

    @Test
    @DisplayName("rxe_chk_dgid: a frame to GID 0 is ours when GID 0 is the interface's link-local address, "
            + "even one that is not the MAC's EUI-64 (stable-privacy, or a bridge whose MAC changed)")
    void gidZeroThatIsNotTheMacsEui64() throws Exception {
        try (Fabric fabric = Fabric.deterministic(); Arena arena = Arena.ofConfined()) {
            SoftRnic a = SoftRnic.builder(fabric).name("rxe0").mac(MacAddress.parse("02:00:00:00:00:01"))
                    .gids(List.of(Gid.parse("fe80::1:2:3:4"), Gid.parse("::ffff:10.0.0.1"))).attach();
            SoftRnic b = SoftRnic.builder(fabric).name("rxe1").mac(MacAddress.parse("02:00:00:00:00:02"))
                    .gids(List.of(Gid.parse("fe80::5:6:7:8"), Gid.parse("::ffff:10.0.0.2"))).attach();
            try (Context ca = a.device().open(); Context cb = b.device().open(); Pd pa = ca.allocPd(); Pd pb = cb.allocPd();
                    Cq qa = ca.createCq(4); Cq qb = cb.createCq(4);
                    Mr ma = pa.regMr(arena.allocate(4096), TwoNodes.ALL_ACCESS); Mr mb = pb.regMr(arena.allocate(4096), TwoNodes.ALL_ACCESS);
                    Qp sender = pa.createQp(QpInitAttr.of(QpType.RC, qa, new QpCap(4, 4, 1, 1, 0)));
                    Qp receiver = pb.createQp(QpInitAttr.of(QpType.RC, qb, new QpCap(4, 4, 1, 1, 0)))) {
                connectOverGid0(sender, receiver.qpNum(), cb.queryGid(1, 0));
                connectOverGid0(receiver, sender.qpNum(), ca.queryGid(1, 0));
                receiver.postRecv(RecvWr.of(1, mb, 0, 64));
                sender.postSend(SendWr.send(1, ma, 0, 8));
                assertThat(qa.poll(4)).extracting(WorkCompletion::status).containsExactly(WcStatus.SUCCESS);
                assertThat(qb.poll(4)).extracting(WorkCompletion::byteLen).containsExactly(8);
                assertThat(b.counters().get(RnicCounter.DROPPED_NOT_OUR_GID)).isZero();
            }
        }
    }

    private static void connectOverGid0(Qp qp, int remoteQpn, org.roce4j.verbs.Gid remoteGid) {
        TwoNodes.BRING_UP.withSgidIndex(0).withRdAtomic(1, 1).withMinRnrTimer(1)
                .connect(qp, 0, new QpBringUp.Remote(remoteQpn, 0, remoteGid));
    }
}
