package org.roce4j.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.net.StandardProtocolFamily;
import java.nio.channels.DatagramChannel;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.roce4j.verbs.Ah;
import org.roce4j.verbs.Errno;
import org.roce4j.verbs.Gid;
import org.roce4j.verbs.Mr;
import org.roce4j.verbs.Mtu;
import org.roce4j.verbs.Qp;
import org.roce4j.verbs.QpBringUp;
import org.roce4j.verbs.QpCap;
import org.roce4j.verbs.QpInitAttr;
import org.roce4j.verbs.QpType;
import org.roce4j.verbs.RecvWr;
import org.roce4j.verbs.SendWr;
import org.roce4j.verbs.WcFlag;
import org.roce4j.verbs.WcOpcode;
import org.roce4j.verbs.WorkCompletion;

/**
 * UD multicast (IBTA 10.5, 11.3.1): ibv_attach_mcast / ibv_detach_mcast and their errnos (core/verbs.c
 * ib_attach_mcast, uverbs_cmd.c, rxe_mcast.c), and delivery of a SEND to DestQP 0xFFFFFF and a group
 * address to every attached QP (rxe_recv.c rxe_rcv_mcast_pkt), each checking its own Q_Key.
 *
 * <p>On a real device the host must be a member of the IP group too: ibv_attach_mcast gives rxe only a
 * MAC filter, and the IP stack delivers (or loops back) a group's datagrams only to a member host, so
 * rxe0 receives nothing of a group its host has not joined (ibverbs/src/test/c/rxe-probe-multicast.c);
 * rdma_join_multicast joins it for the caller. The delivery tests join it here, with a socket on the
 * interface that has the source GID's address, as rdma_cm would; the emulator's in-process devices have
 * no such interface and need none (an attached node is a member).
 *
 * <p>Not here: attaching one QP with a second LID. On Linux detaching either LID takes the QP out of
 * rxe's group, and the core's use count of the QP can then never return to 0, so the QP can never be
 * destroyed (EBUSY) and the test would leave it behind on the device (seen on rxe0, 6.12). The
 * emulator models it and its own MulticastTest checks it.
 */
@ExtendWith(Backend.Resolver.class)
class MulticastTest {
    private static final Gid GROUP = Gid.parse("::ffff:239.1.2.3");
    private static final Gid GROUP6 = Gid.parse("ff0e::1:2:3");
    private static final int MULTICAST_QPN = 0xFFFFFF;
    private static final int OTHER_QKEY = 0x22222222;
    private final Backend backend;

    MulticastTest(Backend backend) {
        this.backend = backend;
    }

    private static Qp udQp(Endpoint e, int qkey) {
        Qp qp = e.track(e.pd.createQp(QpInitAttr.of(QpType.UD, e.cq, QpCap.of(8, 8))));
        QpPair.bringUp(Mtu.MTU_1024, QpPair.remoteAccess()).withQkey(qkey).activate(qp, QpPair.FIRST_PSN_A);
        return qp;
    }

    @Test
    @DisplayName("core/verbs.c ib_attach_mcast: a GID that is not multicast and a QP that is not UD are EINVAL; "
            + "uverbs: attaching twice succeeds, detaching what is not attached is EINVAL")
    void attachAndDetachErrnos() throws Exception {
        try (Endpoint a = Endpoint.first(backend)) {
            Qp ud = a.track(a.pd.createQp(QpInitAttr.of(QpType.UD, a.cq, QpCap.of(4, 4))));
            Qp rc = a.track(a.pd.createQp(QpInitAttr.of(QpType.RC, a.cq, QpCap.of(4, 4))));
            Expect.errno("attach of an RC QP", Errno.EINVAL, () -> rc.attachMcast(GROUP, 0));
            Expect.errno("attach to a unicast GID", Errno.EINVAL, () -> ud.attachMcast(a.gid(), 0));
            Expect.errno("detach of a group not attached", Errno.EINVAL, () -> ud.detachMcast(GROUP, 0));
            Expect.succeeds("attach to ff00:: (multicast: its first byte is 0xff)", () -> ud.attachMcast(Gid.parse("ff00::"), 0));
            Expect.succeeds("attach", () -> ud.attachMcast(GROUP, 0));
            Expect.succeeds("the same attach again", () -> ud.attachMcast(GROUP, 0));
            Expect.succeeds("detach", () -> ud.detachMcast(GROUP, 0));
            Expect.errno("detach again", Errno.EINVAL, () -> ud.detachMcast(GROUP, 0));
            Expect.succeeds("detach ff00::", () -> ud.detachMcast(Gid.parse("ff00::"), 0));
        }
    }

    @Test
    @DisplayName("uverbs_free_qp: ibv_destroy_qp of a QP attached to a group is EBUSY until it is detached")
    void destroyingAnAttachedQpIsEbusy() throws Exception {
        try (Endpoint a = Endpoint.first(backend)) {
            Qp ud = a.untrack(a.track(a.pd.createQp(QpInitAttr.of(QpType.UD, a.cq, QpCap.of(4, 4)))));
            ud.attachMcast(GROUP, 0);
            Expect.errno("destroy while attached", Errno.EBUSY, ud::close);
            ud.detachMcast(GROUP, 0);
            Expect.succeeds("destroy after the detach", ud::close);
        }
    }

    @Test
    @DisplayName("rxe_mcast.c __rxe_init_mca: one QP more than max_mcast_qp_attach in a group is ENOMEM")
    void attachingPastMaxMcastQpAttachIsEnomem() throws Exception {
        try (Endpoint a = Endpoint.first(backend)) {
            int perGroup = a.context.queryDevice().maxMcastQpAttach();
            assumeTrue(perGroup > 0 && perGroup <= 1024, "the device reports max_mcast_qp_attach " + perGroup);
            List<Qp> qps = new ArrayList<>();
            for (int i = 0; i <= perGroup; i++) {
                qps.add(a.track(a.pd.createQp(QpInitAttr.of(QpType.UD, a.cq, QpCap.of(1, 1)))));
            }
            try {
                for (int i = 0; i < perGroup; i++) {
                    qps.get(i).attachMcast(GROUP, 0);
                }
                Expect.errno("attach number " + (perGroup + 1), Errno.ENOMEM, () -> qps.get(perGroup).attachMcast(GROUP, 0));
            } finally {
                for (int i = 0; i < perGroup; i++) {
                    try {
                        qps.get(i).detachMcast(GROUP, 0);
                    } catch (RuntimeException notAttached) {
                        // the attach loop stopped early: the failure above says why
                    }
                }
            }
        }
    }

    @Test
    @DisplayName("IBTA 10.5 / rxe_rcv_mcast_pkt: a UD SEND to DestQP 0xFFFFFF and group 239.1.2.3 reaches each attached QP "
            + "of two contexts once, the GRH giving the group as destination; a member with another Q_Key and a QP not "
            + "attached get nothing; after the detach nobody does")
    void aSendToAGroupReachesEveryAttachedQpOnce() throws Exception {
        try (Endpoint a = Endpoint.first(backend); Endpoint b = Endpoint.second(backend);
             HostMembership member = HostMembership.join(a.gid(), GROUP)) {
            deliverToGroup(a, b, Endpoint.GID_INDEX, GROUP);
        }
    }

    @Test
    @DisplayName("RoCEv2 over IPv6 (IBTA A17.4): a SEND from GID 0 to group ff0e::1:2:3 reaches the attached QP, the GRH's "
            + "destination GID the group")
    void anIpv6GroupIsReached() throws Exception {
        try (Endpoint a = Endpoint.first(backend); Endpoint b = Endpoint.second(backend);
             HostMembership member = HostMembership.join(a.context.queryGid(Endpoint.PORT, 0), GROUP6)) {
            Qp sender = udQp(a, QpPair.QKEY);
            Qp receiver = udQp(b, QpPair.QKEY);
            receiver.attachMcast(GROUP6, 0);
            try {
                Mr src = a.register(64);
                Bytes.write(src.segment(), 0, Bytes.pattern(5, 16));
                Mr dst = b.register(128);
                receiver.postRecv(RecvWr.of(1, dst, 0, 128));
                Ah ah = a.track(a.pd.createAh(QpPair.bringUp(Mtu.MTU_1024, QpPair.remoteAccess()).withSgidIndex(0).path(GROUP6)));
                sender.postSend(SendWr.send(2, src, 0, 16).ud(ah, MULTICAST_QPN, QpPair.QKEY));
                Expect.success(Completions.awaitOne(a.cq), 2, WcOpcode.SEND);
                WorkCompletion wc = Completions.awaitOne(b.cq);
                Expect.success(wc, 1, WcOpcode.RECV);
                assertThat(wc.byteLen()).isEqualTo(40 + 16);
                assertThat(Gid.of(Bytes.read(dst.segment(), 24, 16))).as("the GRH's DGID").isEqualTo(GROUP6);
                Bytes.assertAt(dst.segment(), 40, Bytes.read(src.segment(), 0, 16), "the payload after the GRH");
            } finally {
                receiver.detachMcast(GROUP6, 0);
            }
        }
    }

    private static void deliverToGroup(Endpoint a, Endpoint b, int sgidIndex, Gid group) throws Exception {
        Qp sender = udQp(a, QpPair.QKEY);
        Qp memberA = udQp(a, QpPair.QKEY);
        Qp memberB = udQp(b, QpPair.QKEY);
        Qp otherQkey = udQp(b, OTHER_QKEY);
        Qp notAttached = udQp(b, QpPair.QKEY);
        List<Qp> members = List.of(memberA, memberB, otherQkey);
        for (Qp qp : members) {
            qp.attachMcast(group, 0);
        }
        try {
            Mr src = a.register(64);
            Bytes.write(src.segment(), 0, Bytes.pattern(3, 32));
            Mr dstA = a.register(256);
            Mr dstB = b.register(3 * 256);
            Bytes.canary(dstB.segment());
            memberA.postRecv(RecvWr.of(10, dstA, 0, 256));
            memberB.postRecv(RecvWr.of(11, dstB, 0, 256));
            otherQkey.postRecv(RecvWr.of(12, dstB, 256, 256));
            notAttached.postRecv(RecvWr.of(13, dstB, 512, 256));
            Ah ah = a.track(a.pd.createAh(QpPair.bringUp(Mtu.MTU_1024, QpPair.remoteAccess())
                    .withSgidIndex(sgidIndex).path(group)));
            sender.postSend(SendWr.send(1, src, 0, 32).ud(ah, MULTICAST_QPN, QpPair.QKEY));

            List<WorkCompletion> atA = Completions.await(a.cq, 2, "the SEND's completion and memberA's receive");
            assertThat(atA).extracting(WorkCompletion::wrId).containsExactlyInAnyOrder(1L, 10L);
            WorkCompletion atB = Completions.awaitOne(b.cq);
            Expect.success(atB, 11, WcOpcode.RECV);
            for (WorkCompletion wc : List.of(atB, atA.stream().filter(w -> w.wrId() == 10).findFirst().orElseThrow())) {
                assertThat(wc.byteLen()).as("byte_len: GRH + payload").isEqualTo(40 + 32);
                assertThat(wc.has(WcFlag.GRH)).as("IBV_WC_GRH").isTrue();
                assertThat(wc.srcQp()).as("src_qp").isEqualTo(sender.qpNum());
            }
            byte[] ipv4Destination = Bytes.read(dstB.segment(), 36, 4);
            assertThat(ipv4Destination).as("the GRH's IPv4 destination: the group")
                    .isEqualTo(Arrays.copyOfRange(group.raw(), 12, 16));
            Bytes.assertAt(dstB.segment(), 40, Bytes.read(src.segment(), 0, 32), "the payload after the GRH");
            assertThat(Completions.drain(a.cq)).as("nothing more at A: each member once").isEmpty();
            assertThat(Completions.drain(b.cq)).as("nothing for the other Q_Key nor the QP not attached").isEmpty();
            Bytes.assertUntouched(dstB.segment(), 256, 512, "the buffers of the other Q_Key and of the QP not attached");

            for (Qp qp : members) {
                qp.detachMcast(group, 0);
            }
            sender.postSend(SendWr.send(2, src, 0, 32).ud(ah, MULTICAST_QPN, QpPair.QKEY));
            Expect.success(Completions.awaitOne(a.cq), 2, WcOpcode.SEND);
            assertThat(Completions.drain(a.cq)).as("after the detach: nothing at A").isEmpty();
            assertThat(Completions.drain(b.cq)).as("after the detach: nothing at B").isEmpty();
        } catch (RuntimeException | Error e) {
            for (Qp qp : members) {
                try {
                    qp.detachMcast(group, 0);
                } catch (RuntimeException alreadyDetached) {
                    // the endpoints close the QPs next: they must not be attached then
                }
            }
            throw e;
        }
    }

    /**
     * The host's membership of an IP group on the interface that has {@code source}'s address, held by a
     * socket while the test runs; nothing when no local interface has it (the emulator's in-process
     * devices).
     */
    private record HostMembership(DatagramChannel channel) implements AutoCloseable {
        static HostMembership join(Gid source, Gid group) throws IOException {
            NetworkInterface netdev = interfaceWith(source);
            if (netdev == null) {
                return new HostMembership(null);
            }
            InetAddress groupAddress = group.toInetAddress();
            DatagramChannel channel = DatagramChannel.open(group.isIpv4Mapped()
                    ? StandardProtocolFamily.INET : StandardProtocolFamily.INET6);
            channel.bind(new InetSocketAddress(0));
            channel.join(groupAddress, netdev);
            return new HostMembership(channel);
        }

        private static NetworkInterface interfaceWith(Gid gid) throws SocketException {
            byte[] address = gid.toInetAddress().getAddress();
            for (NetworkInterface netdev : NetworkInterface.networkInterfaces().toList()) {
                for (InetAddress a : netdev.inetAddresses().toList()) {
                    if (Arrays.equals(a.getAddress(), address)) {
                        return netdev;
                    }
                }
            }
            return null;
        }

        @Override
        public void close() throws IOException {
            if (channel != null) {
                channel.close();
            }
        }
    }
}
