package org.roce4j.emulator.cm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.roce4j.emulator.cm.CmNodes.expect;

import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.roce4j.cm.CmEvent;
import org.roce4j.cm.CmEventType;
import org.roce4j.cm.CmId;
import org.roce4j.cm.EventChannel;
import org.roce4j.cm.MulticastJoinFlag;
import org.roce4j.cm.PortSpace;
import org.roce4j.cm.UdParam;
import org.roce4j.verbs.Ah;
import org.roce4j.verbs.Errno;
import org.roce4j.verbs.Gid;
import org.roce4j.verbs.RecvWr;
import org.roce4j.verbs.SendWr;
import org.roce4j.verbs.VerbsException;
import org.roce4j.verbs.WcOpcode;
import org.roce4j.verbs.WorkCompletion;

/**
 * rdma_join_multicast on the emulator's CM as mckey uses it: rdma_resolve_addr from the bound address
 * to the group (a group needs no neighbour), the join, the QP attached when MULTICAST_JOIN is read, a
 * send-only member that sends to the event's address vector, and leave's rules (librdmacm
 * rdma_leave_multicast, ucma.c ucma_leave_multicast).
 */
class CmMulticastTest {
    private static final InetSocketAddress GROUP = CmNodes.socket("239.1.1.1", 0);
    private final CmNodes nodes = new CmNodes();

    @AfterEach
    void close() {
        nodes.close();
    }

    /** mckey's start: rdma_resolve_addr(id, bind address, group): ADDR_RESOLVED at once. */
    private static CmId resolvedToGroup(EventChannel channel, String bindAddress) {
        CmId id = channel.createId(PortSpace.UDP);
        id.resolveAddr(CmNodes.socket(bindAddress, 0), GROUP, Duration.ofSeconds(2));
        CmNodes.expectAndAck(channel, CmEventType.ADDR_RESOLVED);
        return id;
    }

    @Test
    @DisplayName("addr.c (arp_mc_map: NUD_NOARP): rdma_resolve_addr to a multicast group resolves at once, with no "
            + "node owning the address")
    void resolvingAGroupNeedsNoNeighbour() {
        CmId id = resolvedToGroup(nodes.client, "10.0.0.2");
        assertThat(id.peerAddress()).isEqualTo(GROUP);
        assertThat(id.verbs()).isPresent();
    }

    @Test
    @DisplayName("mckey: a full member's QP is attached when its MULTICAST_JOIN is read and receives the SEND with "
            + "immediate a send-only member sends to the event's address vector, QPN and Q_Key; the send-only "
            + "member's own QP is not attached and gets nothing back; after the leave the member gets nothing")
    void aSendOnlyMemberReachesAFullMember() {
        CmId receiver = resolvedToGroup(nodes.server, "10.0.0.1");
        CmNodes.Endpoint member = nodes.endpoint(receiver);
        member.qp.postRecv(RecvWr.of(1, member.mr, 0, 256));
        member.qp.postRecv(RecvWr.of(2, member.mr, 256, 256));
        receiver.joinMulticast(GROUP, "receiver");
        try (CmEvent joined = expect(nodes.server, CmEventType.MULTICAST_JOIN)) {
            assertThat(joined.multicastContext()).contains("receiver");
        }

        CmId senderId = resolvedToGroup(nodes.client, "10.0.0.2");
        CmNodes.Endpoint sender = nodes.endpoint(senderId);
        sender.qp.postRecv(RecvWr.of(3, sender.mr, 0, 256));
        senderId.joinMulticast(GROUP, MulticastJoinFlag.SENDONLY_FULLMEMBER, null);
        UdParam ud;
        try (CmEvent joined = expect(nodes.client, CmEventType.MULTICAST_JOIN)) {
            ud = joined.ud().orElseThrow();
        }
        assertThat(ud.ahAttr().dgid()).isEqualTo(Gid.parse("::ffff:239.1.1.1"));
        assertThat(ud.qpNum()).isEqualTo(0xFFFFFF);
        assertThat(ud.qkey()).isEqualTo(UdParam.RDMA_UDP_QKEY);
        Ah ah = sender.pd.createAh(ud.ahAttr());
        sender.memory.set(ValueLayout.JAVA_LONG, 1024, 0x1122334455667788L);
        sender.qp.postSend(SendWr.sendWithImm(9, sender.mr, 1024, 8, sender.qp.qpNum()).ud(ah, ud.qpNum(), ud.qkey()));

        WorkCompletion received = pollOne(member);
        assertThat(received.opcode()).isEqualTo(WcOpcode.RECV);
        assertThat(received.immData()).isEqualTo(sender.qp.qpNum());
        assertThat(member.memory.get(ValueLayout.JAVA_LONG, 40)).isEqualTo(0x1122334455667788L);
        assertThat(sender.poll()).extracting(WorkCompletion::wrId).as("the sender's SEND only, none of its own datagram")
                .containsExactly(9L);

        receiver.leaveMulticast(GROUP);
        sender.qp.postSend(SendWr.send(10, sender.mr, 1024, 8).ud(ah, ud.qpNum(), ud.qkey()));
        nodes.fabric.runFor(Duration.ofMillis(100));
        assertThat(sender.poll()).extracting(WorkCompletion::wrId).containsExactly(10L);
        assertThat(member.poll()).as("after rdma_leave_multicast").isEmpty();
    }

    private WorkCompletion pollOne(CmNodes.Endpoint end) {
        for (int i = 0; i < 100; i++) {
            nodes.fabric.runFor(Duration.ofMillis(10));
            List<WorkCompletion> got = end.poll();
            if (!got.isEmpty()) {
                assertThat(got).hasSize(1);
                return got.getFirst();
            }
        }
        throw new AssertionError("no completion");
    }

    @Test
    @DisplayName("librdmacm rdma_leave_multicast waits for the join's events the application read to be acknowledged: "
            + "EBUSY here; ucma_leave_multicast drops the ones not read yet")
    void leaveWithTheJoinEventReadButNotAcknowledgedIsEbusy() {
        CmId id = resolvedToGroup(nodes.client, "10.0.0.2");
        id.joinMulticast(GROUP, null);
        CmEvent joined = expect(nodes.client, CmEventType.MULTICAST_JOIN);
        assertThatThrownBy(() -> id.leaveMulticast(GROUP)).isInstanceOfSatisfying(VerbsException.class,
                e -> assertThat(e.errno()).isEqualTo(Errno.EBUSY));
        joined.ack();
        id.leaveMulticast(GROUP);

        id.joinMulticast(GROUP, null);
        id.leaveMulticast(GROUP);
        assertThat(nodes.client.getEvent(Duration.ofMillis(100))).as("the unread MULTICAST_JOIN after the leave").isEmpty();
        id.close();
    }

    @Test
    @DisplayName("cma.c rdma_join_multicast: a join on an id bound to the wildcard address (no device) is EINVAL; a "
            + "joined full member's QP is attached, so destroying it is EBUSY until rdma_leave_multicast detaches it")
    void aJoinNeedsADeviceAndItsQpIsAttachedUntilTheLeave() {
        CmId wildcard = nodes.client.createId(PortSpace.UDP);
        wildcard.bindAddr(CmNodes.socket("0.0.0.0", 0));
        assertThatThrownBy(() -> wildcard.joinMulticast(GROUP, null)).isInstanceOfSatisfying(VerbsException.class,
                e -> assertThat(e.errno()).isEqualTo(Errno.EINVAL));
        CmId id = resolvedToGroup(nodes.client, "10.0.0.2");
        CmNodes.Endpoint end = nodes.endpoint(id);
        id.joinMulticast(GROUP, null);
        CmNodes.expectAndAck(nodes.client, CmEventType.MULTICAST_JOIN);
        assertThatThrownBy(end.qp::close).as("the attached QP").isInstanceOfSatisfying(VerbsException.class,
                e -> assertThat(e.errno()).isEqualTo(Errno.EBUSY));
        id.leaveMulticast(GROUP);
        id.destroyQp();
        id.close();
    }
}
