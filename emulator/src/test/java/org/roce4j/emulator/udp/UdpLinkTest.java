package org.roce4j.emulator.udp;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.util.List;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.roce4j.emulator.RnicCounter;
import org.roce4j.verbs.Ah;
import org.roce4j.verbs.AhAttr;
import org.roce4j.verbs.Gid;
import org.roce4j.verbs.Mtu;
import org.roce4j.verbs.Qp;
import org.roce4j.verbs.QpType;
import org.roce4j.verbs.RecvWr;
import org.roce4j.verbs.SendWr;
import org.roce4j.verbs.WcOpcode;
import org.roce4j.verbs.WcStatus;
import org.roce4j.verbs.WrOpcode;
import org.roce4j.verbs.WorkCompletion;

/** Two UDP devices on 127.0.0.2 and 127.0.0.3, one JVM, real sockets on lo. */
@Timeout(60)
class UdpLinkTest extends LoopbackPair {
    @Test
    @DisplayName("GID table from the address: GID 0 fe80::EUI-64 of a MAC made from it, GID 1 ::ffff:127.0.0.2")
    void gidTable() {
        assertThat(a.rnic.gids()).hasSize(2);
        assertThat(a.context.queryGid(1, 1)).isEqualTo(Gid.parse("::ffff:127.0.0.2"));
        // MAC 02:00:7f:00:00:02 (lo has none) → modified EUI-64 0000:7fff:fe00:0002
        assertThat(a.context.queryGid(1, 0)).isEqualTo(Gid.parse("fe80::7fff:fe00:2"));
        assertThat(a.rnic.interfaceName()).isEqualTo("lo");
        assertThat(a.context.queryGid(1, 0)).isNotEqualTo(b.context.queryGid(1, 0));
    }

    @Test
    @DisplayName("RC SEND, WRITE with immediate and READ of 200 KiB (MTU 1024: 200 packets each), data checked")
    void rcMultiPacket() {
        Qp[] qp = UdpSide.pair(a, b, QpType.RC, Mtu.MTU_1024);
        int length = 200 << 10;
        UdpSide.fill(a.memory, 0, length, 1);
        qp[1].postRecv(RecvWr.of(1, b.mr, 0, length));
        qp[0].postSend(SendWr.send(2, a.mr, 0, length));
        WorkCompletion sent = a.pollOne();
        WorkCompletion received = b.pollOne();
        assertThat(sent.status()).isEqualTo(WcStatus.SUCCESS);
        assertThat(received.status()).isEqualTo(WcStatus.SUCCESS);
        assertThat(received.byteLen()).isEqualTo(length);
        UdpSide.assertSameBytes(a.memory, 0, b.memory, 0, length);

        UdpSide.fill(a.memory, 0, length, 2);
        qp[1].postRecv(RecvWr.of(3, b.mr, 0, 0));
        qp[0].postSend(SendWr.rdmaWrite(4, a.mr, 0, length, b.mr.address() + 1_000_000, b.mr.rkey())
                .opcode(WrOpcode.RDMA_WRITE_WITH_IMM).immData(0x1234_5678));
        assertThat(a.pollOne().status()).isEqualTo(WcStatus.SUCCESS);
        WorkCompletion imm = b.pollOne();
        assertThat(imm.status()).isEqualTo(WcStatus.SUCCESS);
        assertThat(imm.opcode()).isEqualTo(WcOpcode.RECV_RDMA_WITH_IMM);
        assertThat(imm.immData()).isEqualTo(0x1234_5678);
        UdpSide.assertSameBytes(a.memory, 0, b.memory, 1_000_000, length);

        UdpSide.fill(b.memory, 2_000_000, length, 3);
        qp[0].postSend(SendWr.rdmaRead(5, a.mr, 2_000_000, length, b.mr.address() + 2_000_000, b.mr.rkey()));
        assertThat(a.pollOne().status()).isEqualTo(WcStatus.SUCCESS);
        UdpSide.assertSameBytes(a.memory, 2_000_000, b.memory, 2_000_000, length);
    }

    @Test
    @DisplayName("RC atomics: fetch-and-add and compare-and-swap return the original and change the remote value")
    void rcAtomics() {
        Qp[] qp = UdpSide.pair(a, b, QpType.RC, Mtu.MTU_1024);
        b.memory.set(ValueLayout.JAVA_LONG, 3_000_000, 40);
        qp[0].postSend(SendWr.fetchAndAdd(1, a.mr, 3_000_000, b.mr.address() + 3_000_000, b.mr.rkey(), 2));
        assertThat(a.pollOne().status()).isEqualTo(WcStatus.SUCCESS);
        assertThat(a.memory.get(ValueLayout.JAVA_LONG, 3_000_000)).isEqualTo(40);
        assertThat(b.memory.get(ValueLayout.JAVA_LONG, 3_000_000)).isEqualTo(42);
        qp[0].postSend(SendWr.compareAndSwap(2, a.mr, 3_000_008, b.mr.address() + 3_000_000, b.mr.rkey(), 42, 7));
        assertThat(a.pollOne().status()).isEqualTo(WcStatus.SUCCESS);
        assertThat(a.memory.get(ValueLayout.JAVA_LONG, 3_000_008)).isEqualTo(42);
        assertThat(b.memory.get(ValueLayout.JAVA_LONG, 3_000_000)).isEqualTo(7);
    }

    @Test
    @DisplayName("UD SEND with GRH: the receive buffer starts with 20 zero bytes and the IPv4 header (source 127.0.0.2)")
    void udWithGrh() {
        Qp[] qp = UdpSide.pair(a, b, QpType.UD, Mtu.MTU_1024);
        UdpSide.fill(a.memory, 0, 1000, 4);
        qp[1].postRecv(RecvWr.of(1, b.mr, 3_500_000, 1040));
        try (Ah ah = a.pd.createAh(AhAttr.of(b.gid(), UdpSide.GID_INDEX, 1))) {
            qp[0].postSend(SendWr.send(2, a.mr, 0, 1000).ud(ah, qp[1].qpNum(), 0x11111111));
            assertThat(a.pollOne().status()).isEqualTo(WcStatus.SUCCESS);
            WorkCompletion wc = b.pollOne();
            assertThat(wc.status()).isEqualTo(WcStatus.SUCCESS);
            assertThat(wc.byteLen()).isEqualTo(1040);
            assertThat(wc.srcQp()).isEqualTo(qp[0].qpNum());
        }
        byte[] grh = b.memory.asSlice(3_500_000, 40).toArray(ValueLayout.JAVA_BYTE);
        for (int i = 0; i < 20; i++) {
            assertThat(grh[i]).as("GRH byte " + i).isZero();
        }
        assertThat(grh[20]).isEqualTo((byte) 0x45);
        assertThat(List.of(grh[32], grh[33], grh[34], grh[35])).containsExactly((byte) 127, (byte) 0, (byte) 0, (byte) 2);
        assertThat(List.of(grh[36], grh[37], grh[38], grh[39])).containsExactly((byte) 127, (byte) 0, (byte) 0, (byte) 3);
        UdpSide.assertSameBytes(a.memory, 0, b.memory, 3_500_040, 1000);
    }

    @Test
    @DisplayName("A frame from GID 0 (fe80::EUI-64, no socket on lo) cannot be sent: counted, not thrown")
    void noSocketForGidZero() {
        long before = a.rnic.linkCounters().noSocketDrops();
        Qp qa = a.createQp(QpType.UD, 16);
        UdpSide.connect(qa, 0, null, 1, 1, Mtu.MTU_1024, rts -> { });
        try (Ah ah = a.pd.createAh(AhAttr.of(b.context.queryGid(1, 0), 0, 1))) {
            qa.postSend(SendWr.send(1, a.mr, 0, 8).ud(ah, 17, 0x11111111));
            assertThat(a.pollOne().status()).isEqualTo(WcStatus.SUCCESS); // UD: sent is done
        }
        assertThat(a.rnic.linkCounters().noSocketDrops()).isEqualTo(before + 1);
        assertThat(a.rnic.rnic().counter(RnicCounter.FRAMES_SENT)).isPositive();
    }

    /** Polls until the condition holds, at most 5 s. */
    static void eventually(java.util.function.BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + 5_000_000_000L;
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("not within 5 s: " + what);
            }
            Thread.sleep(2);
        }
    }

    @Test
    @DisplayName("ICRC on receive: a UD SEND with a rxe-like Identification 0x1234 is accepted, the ID recovered "
            + "into the GRH; the same frame with one byte flipped is dropped as BAD_ICRC")
    void icrcWithForeignIdentificationAndCorruption() throws Exception {
        Qp ud = b.createQp(QpType.UD, 16);
        UdpSide.connect(ud, 0, null, 0, 0, Mtu.MTU_1024, rts -> { });
        ud.postRecv(RecvWr.of(1, b.mr, 3_600_000, 1040));
        InetAddress to = b.rnic.address();
        byte[] payload = "hello from a peer that counts its IPv4 Identifications".getBytes();
        // A sender the link has not heard from (other tests send from 127.0.0.1 with Identification 0, and
        // 0x1234 would lie outside that sender's window): its first valid frame starts its sequence.
        try (RawPeer peer = new RawPeer("127.0.0.11")) {
            UdpLinkCounters before = b.rnic.linkCounters();
            byte[] good = peer.datagram(RawPeer.udSend(ud.qpNum(), 0x11111111, 0x77, 5, payload), to, 0x1234);
            byte[] corrupt = good.clone();
            corrupt[25] ^= 0x01; // a payload byte
            peer.send(corrupt, to);
            eventually(() -> b.rnic.linkCounters().icrcInvalid() == before.icrcInvalid() + 1, "corrupt frame seen");
            peer.send(good, to);
            WorkCompletion wc = b.pollOne();
            assertThat(wc.status()).isEqualTo(WcStatus.SUCCESS);
            assertThat(wc.srcQp()).isEqualTo(0x77);
            assertThat(b.rnic.linkCounters().icrcIdRecovered()).isEqualTo(before.icrcIdRecovered() + 1);
            assertThat(b.rnic.rnic().dropped(org.roce4j.wire.DropReason.BAD_ICRC)).isPositive();
            byte[] grh = b.memory.asSlice(3_600_000, 40).toArray(ValueLayout.JAVA_BYTE);
            assertThat(grh[24]).as("recovered Identification, high byte").isEqualTo((byte) 0x12);
            assertThat(grh[25]).as("recovered Identification, low byte").isEqualTo((byte) 0x34);
            assertThat(b.memory.asSlice(3_600_040, payload.length).toArray(ValueLayout.JAVA_BYTE)).isEqualTo(payload);
        }
        assertThat(b.pollNone()).isTrue();
    }

    @Test
    @DisplayName("Frames for an unknown QP, and RC frames from an address that is not the QP's peer (rxe check_addr), "
            + "are dropped and counted")
    void unknownQpAndStrangerDropped() throws Exception {
        Qp[] qp = UdpSide.pair(a, b, QpType.RC, Mtu.MTU_1024);
        qp[1].postRecv(RecvWr.of(1, b.mr, 0, 64));
        InetAddress to = b.rnic.address();
        long unknownBefore = b.rnic.rnic().counter(RnicCounter.DROPPED_UNKNOWN_QP);
        long strangerBefore = b.rnic.rnic().counter(RnicCounter.DROPPED_WRONG_ADDRESS);
        try (RawPeer peer = new RawPeer("127.0.0.1")) {
            peer.send(peer.datagram(RawPeer.rcSend(0xABCDE, 0, new byte[8]), to, 0), to);
            eventually(() -> b.rnic.rnic().counter(RnicCounter.DROPPED_UNKNOWN_QP) == unknownBefore + 1, "unknown QP drop");
            peer.send(peer.datagram(RawPeer.rcSend(qp[1].qpNum(), 200, new byte[8]), to, 0), to);
            eventually(() -> b.rnic.rnic().counter(RnicCounter.DROPPED_WRONG_ADDRESS) == strangerBefore + 1, "stranger drop");
        }
        assertThat(b.pollNone()).as("the stranger's SEND took no receive WQE").isTrue();
        // the real peer's SEND still gets the receive
        qp[0].postSend(SendWr.send(2, a.mr, 0, 64));
        assertThat(a.pollOne().status()).isEqualTo(WcStatus.SUCCESS);
        assertThat(b.pollOne().wrId()).isEqualTo(1);
    }
}
