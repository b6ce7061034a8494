package org.roce4j.emulator.udp;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.roce4j.emulator.RnicCounter;
import org.roce4j.verbs.Ah;
import org.roce4j.verbs.AhAttr;
import org.roce4j.verbs.Gid;
import org.roce4j.verbs.Mtu;
import org.roce4j.verbs.Qp;
import org.roce4j.verbs.QpType;
import org.roce4j.verbs.RecvWr;
import org.roce4j.verbs.SendWr;
import org.roce4j.verbs.WcFlag;
import org.roce4j.verbs.WcOpcode;
import org.roce4j.verbs.WcStatus;
import org.roce4j.verbs.WorkCompletion;
import org.roce4j.wire.PacketInfo;
import org.roce4j.wire.pcap.PcapReader;
import org.roce4j.wire.pcap.PcapRecord;

/**
 * UD multicast between two UDP devices on lo: IPv4 multicast works on lo here (the group socket joined on
 * lo hears datagrams a socket bound to 127.0.0.x sends to the group); IPv6 does not (lo has no
 * IFF_MULTICAST, and no route for ff00::/8: sendto is ENETUNREACH), so only IPv4 is tested over UDP.
 */
class MulticastOverUdpTest extends LoopbackPair {
    private static final Gid GROUP = Gid.parse("::ffff:239.1.2.3");
    private static final int QKEY = 0x11111111;

    @Test
    @DisplayName("Over UDP: attaching joins 239.1.2.3 on lo, a SEND to DestQP 0xFFFFFF reaches every attached QP of "
            + "both devices once (the sender's device too, through the IP stack's multicast loopback), the GRH names "
            + "the group; the last detach leaves the group and a SEND then reaches nobody")
    void aGroupIsJoinedWhileAttachedAndEveryMemberReceivesOnce() throws Exception {
        Qp sender = a.createQp(QpType.UD, 16);
        Qp local = a.createQp(QpType.UD, 16);
        Qp remote1 = b.createQp(QpType.UD, 16);
        Qp remote2 = b.createQp(QpType.UD, 16);
        List<Qp> members = List.of(local, remote1, remote2);
        for (Qp qp : List.of(sender, local, remote1, remote2)) {
            UdpSide.connect(qp, 0, null, 0, 0, Mtu.MTU_1024, rts -> { });
        }
        for (Qp qp : members) {
            qp.attachMcast(GROUP, 0);
        }
        InetAddress group = InetAddress.getByName("239.1.2.3");
        assertThat(a.rnic.joinedGroups()).containsExactly(group);
        assertThat(b.rnic.joinedGroups()).containsExactly(group);
        local.postRecv(RecvWr.of(1, a.mr, 4096, 256));
        remote1.postRecv(RecvWr.of(2, b.mr, 4096, 256));
        remote2.postRecv(RecvWr.of(3, b.mr, 8192, 256));
        a.memory.set(ValueLayout.JAVA_LONG, 0, 0x0102030405060708L);
        Ah ah = a.pd.createAh(AhAttr.of(GROUP, 1, 1));
        sender.postSend(SendWr.send(9, a.mr, 0, 8).ud(ah, 0xFFFFFF, QKEY));

        List<WorkCompletion> atA = new ArrayList<>(List.of(a.pollOne(), a.pollOne()));
        assertThat(atA).extracting(WorkCompletion::qpNum).containsExactlyInAnyOrder(sender.qpNum(), local.qpNum());
        List<WorkCompletion> atB = List.of(b.pollOne(), b.pollOne());
        assertThat(atB).extracting(WorkCompletion::qpNum).containsExactlyInAnyOrder(remote1.qpNum(), remote2.qpNum());
        List<WorkCompletion> received = new ArrayList<>(atB);
        atA.stream().filter(wc -> wc.opcode() == WcOpcode.RECV).forEach(received::add);
        assertThat(received).hasSize(3).allSatisfy(wc -> {
            assertThat(wc.status()).isEqualTo(WcStatus.SUCCESS);
            assertThat(wc.byteLen()).isEqualTo(48);
            assertThat(wc.has(WcFlag.GRH)).isTrue();
            assertThat(wc.srcQp()).isEqualTo(sender.qpNum());
        });
        assertThat(b.memory.asSlice(4096 + 36, 4).toArray(ValueLayout.JAVA_BYTE)).containsExactly(239, 1, 2, 3);
        assertThat(b.memory.get(ValueLayout.JAVA_LONG, 8192 + 40)).isEqualTo(0x0102030405060708L);
        assertThat(a.pollNone()).isTrue();
        assertThat(b.pollNone()).isTrue();

        for (Qp qp : members) {
            qp.detachMcast(GROUP, 0);
        }
        assertThat(a.rnic.joinedGroups()).isEmpty();
        assertThat(b.rnic.joinedGroups()).isEmpty();
        long dropsBefore = b.rnic.rnic().counter(RnicCounter.DROPPED_NO_MCAST_GROUP);
        remote1.postRecv(RecvWr.of(4, b.mr, 4096, 256));
        sender.postSend(SendWr.send(10, a.mr, 0, 8).ud(ah, 0xFFFFFF, QKEY));
        assertThat(a.pollOne().wrId()).isEqualTo(10);
        Thread.sleep(200); // a datagram nobody joined for is not delivered at all: there is no counter to wait for
        assertThat(b.pollNone()).isTrue();
        assertThat(b.rnic.rnic().counter(RnicCounter.DROPPED_NO_MCAST_GROUP)).isEqualTo(dropsBefore);
        assertThat(a.rnic.multicastJoinFailures() + b.rnic.multicastJoinFailures()).isZero();
        for (Qp qp : List.of(sender, local, remote1, remote2)) {
            qp.close();
        }
    }

    @Test
    @DisplayName("The taps show a group's frames as the wire would: to MAC 01:00:5e:01:02:03 and 239.1.2.3, DestQP 0xFFFFFF, "
            + "a valid ICRC, sent and received alike")
    void tappedMulticastFramesGoToTheGroupMac(@TempDir Path dir) throws Exception {
        Path sentTap = dir.resolve("sent.pcap");
        Path receivedTap = dir.resolve("received.pcap");
        try (UdpSide x = new UdpSide("rxe6", "127.0.0.6", UdpLinkConfig.DEFAULT);
             UdpSide y = new UdpSide("rxe7", "127.0.0.7", UdpLinkConfig.DEFAULT)) {
            x.rnic.tap(sentTap);
            y.rnic.tap(receivedTap);
            Qp sender = x.createQp(QpType.UD, 4);
            Qp member = y.createQp(QpType.UD, 4);
            UdpSide.connect(sender, 0, null, 0, 0, Mtu.MTU_1024, rts -> { });
            UdpSide.connect(member, 0, null, 0, 0, Mtu.MTU_1024, rts -> { });
            member.attachMcast(GROUP, 0);
            member.postRecv(RecvWr.of(1, y.mr, 0, 256));
            sender.postSend(SendWr.send(2, x.mr, 0, 8).ud(x.pd.createAh(AhAttr.of(GROUP, 1, 1)), 0xFFFFFF, QKEY));
            assertThat(y.pollOne().wrId()).isEqualTo(1);
            assertThat(x.pollOne().wrId()).isEqualTo(2);
            member.detachMcast(GROUP, 0);
        }
        PacketInfo info = new PacketInfo();
        for (Path tap : List.of(sentTap, receivedTap)) {
            List<byte[]> frames = new ArrayList<>();
            try (PcapReader reader = PcapReader.open(tap)) {
                for (PcapRecord record : reader) {
                    frames.add(record.data());
                }
            }
            assertThat(frames).as(tap.getFileName().toString()).singleElement().satisfies(f -> {
                assertThat(Arrays.copyOfRange(f, 0, 6)).as("destination MAC")
                        .isEqualTo(new byte[] {1, 0, 0x5e, 1, 2, 3});
                assertThat(info.parseFrame(f, 0, f.length)).as("ICRC and headers: %s", info.dropDetail()).isTrue();
                assertThat(info.destQp()).isEqualTo(0xFFFFFF);
                assertThat(Arrays.copyOfRange(f, info.ipDestinationOffset(), info.ipDestinationOffset() + 4))
                        .isEqualTo(new byte[] {(byte) 239, 1, 2, 3});
            });
        }
    }
}
