package org.roce4j.emulator.udp;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.Arena;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.roce4j.cm.CmEvent;
import org.roce4j.cm.CmEventType;
import org.roce4j.cm.CmId;
import org.roce4j.cm.EventChannel;
import org.roce4j.cm.MulticastJoinFlag;
import org.roce4j.cm.PortSpace;
import org.roce4j.cm.UdParam;
import org.roce4j.emulator.EmulatedCm;
import org.roce4j.verbs.Ah;
import org.roce4j.verbs.Qp;
import org.roce4j.verbs.RecvWr;
import org.roce4j.verbs.SendWr;
import org.roce4j.verbs.WorkCompletion;

/**
 * rdma_join_multicast over the UDP link, as mckey runs between two hosts: rdma_resolve_addr to the group
 * through the host's tables (a group needs no neighbour), a full member whose device joins the IP group
 * on its interface while its QP is attached, and a send-only member's SEND to it on lo.
 */
class CmMulticastOverUdpTest extends LoopbackPair {
    private static CmId resolvedToGroup(EventChannel channel, InetAddress local, InetSocketAddress group) {
        CmId id = channel.createId(PortSpace.UDP);
        id.resolveAddr(new InetSocketAddress(local, 0), group, Duration.ofSeconds(2));
        next(channel, CmEventType.ADDR_RESOLVED).ack();
        return id;
    }

    private static CmEvent next(EventChannel channel, CmEventType expected) {
        return CmOverUdpTest.expect(channel, expected);
    }

    @Test
    @DisplayName("Over UDP: mckey's receiver joins 239.1.5.1 (its device joins the IP group on lo while the QP is "
            + "attached, and leaves it with rdma_leave_multicast); a send-only member's SEND with immediate reaches it")
    void mckeyBetweenTwoUdpDevices() throws Exception {
        InetSocketAddress group = new InetSocketAddress(InetAddress.getByName("239.1.5.1"), 0);
        EventChannel receiverChannel = EmulatedCm.of(a.rnic.rnic()).createEventChannel();
        EventChannel senderChannel = EmulatedCm.of(b.rnic.rnic()).createEventChannel();
        try (Arena arena = Arena.ofShared()) {
            CmId receiver = resolvedToGroup(receiverChannel, InetAddress.getByName("127.0.0.2"), group);
            CmOverUdpTest.Verbs member = CmOverUdpTest.Verbs.of(receiver, arena);
            member.qp().postRecv(RecvWr.of(1, member.mr(), 0, 256));
            receiver.joinMulticast(group, null);
            next(receiverChannel, CmEventType.MULTICAST_JOIN).ack();
            assertThat(a.rnic.joinedGroups()).containsExactly(group.getAddress());

            CmId sender = resolvedToGroup(senderChannel, InetAddress.getByName("127.0.0.3"), group);
            CmOverUdpTest.Verbs senderVerbs = CmOverUdpTest.Verbs.of(sender, arena);
            Qp senderQp = senderVerbs.qp();
            sender.joinMulticast(group, MulticastJoinFlag.SENDONLY_FULLMEMBER, null);
            UdParam ud;
            try (CmEvent joined = next(senderChannel, CmEventType.MULTICAST_JOIN)) {
                ud = joined.ud().orElseThrow();
            }
            assertThat(b.rnic.joinedGroups()).as("a send-only member joins no IP group").isEmpty();
            Ah ah = senderVerbs.pd().createAh(ud.ahAttr());
            senderVerbs.memory().set(ValueLayout.JAVA_LONG, 1024, 0x0102030405060708L);
            senderQp.postSend(SendWr.sendWithImm(2, senderVerbs.mr(), 1024, 8, senderQp.qpNum()).ud(ah, ud.qpNum(), ud.qkey()));
            WorkCompletion received = member.pollOne();
            assertThat(received.wrId()).isEqualTo(1);
            assertThat(received.immData()).isEqualTo(senderQp.qpNum());
            assertThat(member.memory().get(ValueLayout.JAVA_LONG, 40)).isEqualTo(0x0102030405060708L);
            assertThat(senderVerbs.pollOne().wrId()).isEqualTo(2);

            receiver.leaveMulticast(group);
            sender.leaveMulticast(group);
            assertThat(a.rnic.joinedGroups()).as("after rdma_leave_multicast").isEmpty();
            receiver.destroyQp();
            sender.destroyQp();
            receiver.close();
            sender.close();
        }
        receiverChannel.close();
        senderChannel.close();
    }
}
