package org.roce4j.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.roce4j.cm.CmEvent;
import org.roce4j.cm.CmEventType;
import org.roce4j.cm.CmId;
import org.roce4j.cm.MulticastJoinFlag;
import org.roce4j.cm.PortSpace;
import org.roce4j.cm.UdParam;
import org.roce4j.verbs.Ah;
import org.roce4j.verbs.Context;
import org.roce4j.verbs.Cq;
import org.roce4j.verbs.Errno;
import org.roce4j.verbs.Gid;
import org.roce4j.verbs.Mr;
import org.roce4j.verbs.Pd;
import org.roce4j.verbs.Qp;
import org.roce4j.verbs.QpCap;
import org.roce4j.verbs.QpInitAttr;
import org.roce4j.verbs.QpType;
import org.roce4j.verbs.RecvWr;
import org.roce4j.verbs.SendWr;
import org.roce4j.verbs.WcOpcode;
import org.roce4j.verbs.WorkCompletion;

/**
 * rdma_join_multicast / rdma_leave_multicast on RoCEv2 as the kernel does them without an SA (cma.c
 * {@code cma_iboe_join_multicast}, {@code cma_iboe_set_mgid}, {@code cma_make_mc_event}) with librdmacm's
 * share ({@code ucma_process_join} attaches the QP when the event is read, {@code rdma_leave_multicast}
 * detaches it): the MULTICAST_JOIN event's address vector, QPN and Q_Key, delivery of what mckey sends,
 * and each errno. The IGMP join the kernel sends is not checked here (it is off the RDMA device).
 */
@ExtendWith(Backend.Resolver.class)
class CmMulticastTest {
    private static final int MULTICAST_QPN = 0xFFFFFF;
    private static final int HOP_LIMIT = 64;
    private final Backend backend;

    CmMulticastTest(Backend backend) {
        this.backend = backend;
    }

    private static InetAddress group(int last) throws Exception {
        return InetAddress.getByAddress(new byte[] {(byte) 239, 1, 4, (byte) last});
    }

    /** A UDP-port-space id bound to the side's address. */
    private static CmId boundUdpId(CmSide side) throws Exception {
        CmId id = side.track(side.channel.createId(PortSpace.UDP));
        Expect.succeeds("rdma_bind_addr", () -> id.bindAddr(new InetSocketAddress(side.address, 0)));
        return id;
    }

    /** The id's UD QP made by rdma_create_qp (the CM moves it to RTS with RDMA_UDP_QKEY), destroyed before the id. */
    private static Qp udQp(CmSide side, CmId id) {
        Context context = id.verbs().orElseThrow(() -> new AssertionError("the id has no device"));
        Pd pd = side.track(context.allocPd());
        Cq cq = side.track(context.createCq(32));
        Qp qp = id.createQp(pd, QpInitAttr.of(QpType.UD, cq, QpCap.of(8, 8)));
        side.track(id::destroyQp);
        return qp;
    }

    /** What the test keeps of a multicast event after acknowledging it. */
    private record McEvent(CmEventType type, int status, UdParam ud, Object context) {
    }

    private static McEvent next(CmSide side, String check) {
        McEvent seen = side.channel.getEvent(Completions.PATIENCE).map(event -> {
            try (CmEvent e = event) {
                return new McEvent(e.type(), e.status(), e.ud().orElse(null), e.multicastContext().orElse(null));
            }
        }).orElse(null);
        if (seen == null) {
            Expect.outcome(check, "an event", "no event in " + Completions.PATIENCE.toSeconds() + " s");
        }
        return seen;
    }

    @Test
    @DisplayName("cma.c cma_iboe_join_multicast / cma_make_mc_event: joining 239.1.4.1 gives MULTICAST_JOIN at once, its ud "
            + "param the group's GID ::ffff:239.1.4.1 with hop limit 64 from the id's GID, QPN 0xFFFFFF, Q_Key RDMA_UDP_QKEY, "
            + "and the join's context")
    void joinGivesTheGroupsAddressVector() throws Exception {
        try (CmSide side = CmSide.first(backend)) {
            CmId id = boundUdpId(side);
            Object context = "mckey node 0";
            InetSocketAddress group = new InetSocketAddress(group(1), 0);
            Expect.succeeds("rdma_join_multicast", () -> id.joinMulticast(group, context));
            McEvent joined = next(side, "event after rdma_join_multicast");
            Expect.outcome("event after rdma_join_multicast", "MULTICAST_JOIN", CmSide.describe(joined.type(), joined.status()));
            assertThat(joined.ud().ahAttr().dgid()).as("ah_attr.grh.dgid").isEqualTo(Gid.of(group.getAddress()));
            assertThat(joined.ud().ahAttr().hopLimit()).as("ah_attr.grh.hop_limit").isEqualTo(HOP_LIMIT);
            assertThat(joined.ud().ahAttr().sgidIndex()).as("ah_attr.grh.sgid_index: the id's GID")
                    .isEqualTo(Endpoint.GID_INDEX);
            assertThat(joined.ud().qpNum()).as("qp_num").isEqualTo(MULTICAST_QPN);
            assertThat(joined.ud().qkey()).as("qkey").isEqualTo(UdParam.RDMA_UDP_QKEY);
            assertThat(joined.context()).as("the join's context (param.ud.private_data)").isSameAs(context);
            Expect.succeeds("rdma_leave_multicast", () -> id.leaveMulticast(group));
        }
    }

    @Test
    @DisplayName("librdmacm rdma_leave_multicast: leaving a group the id has not joined (or has left) is EADDRNOTAVAIL")
    void leavingAGroupNotJoinedIsEaddrnotavail() throws Exception {
        try (CmSide side = CmSide.first(backend)) {
            CmId id = boundUdpId(side);
            InetSocketAddress group = new InetSocketAddress(group(2), 0);
            Expect.errno("rdma_leave_multicast before any join", Errno.EADDRNOTAVAIL, () -> id.leaveMulticast(group));
            Expect.succeeds("rdma_join_multicast", () -> id.joinMulticast(group, null));
            next(side, "event after rdma_join_multicast");
            Expect.succeeds("rdma_leave_multicast", () -> id.leaveMulticast(group));
            Expect.errno("rdma_leave_multicast again", Errno.EADDRNOTAVAIL, () -> id.leaveMulticast(group));
        }
    }

    @Test
    @DisplayName("cma.c rdma_join_multicast: an id of the TCP port space, an id without a device and the wildcard "
            + "address are EINVAL")
    void joinsTheKernelRefusesAreEinval() throws Exception {
        try (CmSide side = CmSide.first(backend)) {
            InetSocketAddress group = new InetSocketAddress(group(3), 0);
            CmId tcp = side.id();
            tcp.bindAddr(new InetSocketAddress(side.address, 0));
            Expect.errno("rdma_join_multicast on a TCP id", Errno.EINVAL, () -> tcp.joinMulticast(group, null));
            CmId unbound = side.track(side.channel.createId(PortSpace.UDP));
            Expect.errno("rdma_join_multicast on an id with no device (ucma_get_ctx_dev)", Errno.EINVAL,
                    () -> unbound.joinMulticast(group, null));
            CmId udp = boundUdpId(side);
            Expect.errno("rdma_join_multicast of 0.0.0.0 (cma_zero_addr)", Errno.EINVAL,
                    () -> udp.joinMulticast(new InetSocketAddress(InetAddress.getByName("0.0.0.0"), 0), null));
        }
    }

    @Test
    @DisplayName("cma.c cma_iboe_join_multicast: an IPv6 group on a RoCEv2 port is ENOTSUPP (524)")
    void anIpv6GroupOnRoceV2IsEnotsupp() throws Exception {
        try (CmSide side = CmSide.first(backend)) {
            CmId id = boundUdpId(side);
            Expect.errno("rdma_join_multicast of ff0e::1:4:4", Errno.ENOTSUPP,
                    () -> id.joinMulticast(new InetSocketAddress(InetAddress.getByName("ff0e::1:4:4"), 0), null));
        }
    }

    @Test
    @DisplayName("librdmacm ucma_process_join: when a full member's QP cannot be attached (a unicast address) the event "
            + "read is MULTICAST_ERROR with status -1")
    void aJoinWhoseQpCannotBeAttachedIsMulticastError() throws Exception {
        try (CmSide side = CmSide.first(backend)) {
            CmId id = boundUdpId(side);
            udQp(side, id);
            InetSocketAddress unicast = new InetSocketAddress(CmLifecycleTest.unusedNeighbour(side.address), 0);
            Expect.succeeds("rdma_join_multicast of a unicast address", () -> id.joinMulticast(unicast, null));
            McEvent seen = next(side, "event after the join");
            Expect.outcome("event read after joining a unicast address with a QP", "MULTICAST_ERROR status -1",
                    CmSide.describe(seen.type(), seen.status()));
            Expect.succeeds("rdma_leave_multicast", () -> id.leaveMulticast(unicast));
        }
    }

    @Test
    @DisplayName("mckey: a SEND with immediate from a send-only member to the MULTICAST_JOIN event's address vector, "
            + "QPN and Q_Key reaches the full member's QP (attached when its event was read), the GRH's destination "
            + "the group; after rdma_leave_multicast it no longer does")
    void aSendToTheJoinedGroupReachesTheMember() throws Exception {
        try (CmSide receiverSide = CmSide.first(backend); CmSide senderSide = CmSide.second(backend)) {
            InetSocketAddress group = new InetSocketAddress(group(5), 0);
            CmId receiver = boundUdpId(receiverSide);
            Qp receiverQp = udQp(receiverSide, receiver);
            Mr inbox = receiverSide.register(receiverQp, 2 * 256);
            receiverQp.postRecv(RecvWr.of(1, inbox, 0, 256));
            receiverQp.postRecv(RecvWr.of(2, inbox, 256, 256));
            receiver.joinMulticast(group, MulticastJoinFlag.FULLMEMBER, null);
            McEvent memberJoined = next(receiverSide, "the receiver's join");
            Expect.outcome("the receiver's join", "MULTICAST_JOIN", CmSide.describe(memberJoined.type(), memberJoined.status()));

            CmId sender = boundUdpId(senderSide);
            Qp senderQp = udQp(senderSide, sender);
            sender.joinMulticast(group, MulticastJoinFlag.SENDONLY_FULLMEMBER, null);
            McEvent senderJoined = next(senderSide, "the sender's join");
            Expect.outcome("the sender's send-only join", "MULTICAST_JOIN",
                    CmSide.describe(senderJoined.type(), senderJoined.status()));
            Ah ah = senderSide.track(senderQp.pd().createAh(senderJoined.ud().ahAttr()));
            Mr outbox = senderSide.register(senderQp, 64);
            Bytes.write(outbox.segment(), 0, Bytes.pattern(9, 48));
            senderQp.postSend(SendWr.sendWithImm(7, outbox, 0, 48, senderQp.qpNum())
                    .ud(ah, senderJoined.ud().qpNum(), senderJoined.ud().qkey()));
            Expect.success(Completions.awaitOne(CmSide.cqOf(senderQp)), 7, WcOpcode.SEND);
            WorkCompletion wc = Completions.awaitOne(CmSide.cqOf(receiverQp));
            Expect.success(wc, 1, WcOpcode.RECV);
            assertThat(wc.byteLen()).as("byte_len: GRH + payload").isEqualTo(40 + 48);
            assertThat(wc.immData()).as("imm_data: the sender's QPN, as mckey sends").isEqualTo(senderQp.qpNum());
            assertThat(Bytes.read(inbox.segment(), 36, 4)).as("the GRH's IPv4 destination: the group")
                    .isEqualTo(group.getAddress().getAddress());
            Bytes.assertAt(inbox.segment(), 40, Bytes.read(outbox.segment(), 0, 48), "the payload after the GRH");

            Expect.succeeds("rdma_leave_multicast at the receiver", () -> receiver.leaveMulticast(group));
            senderQp.postSend(SendWr.sendWithImm(8, outbox, 0, 48, senderQp.qpNum())
                    .ud(ah, senderJoined.ud().qpNum(), senderJoined.ud().qkey()));
            Expect.success(Completions.awaitOne(CmSide.cqOf(senderQp)), 8, WcOpcode.SEND);
            assertThat(Completions.drain(CmSide.cqOf(receiverQp))).as("at the receiver after it left").isEmpty();
            Expect.succeeds("rdma_leave_multicast at the sender", () -> sender.leaveMulticast(group));
        }
    }
}
