package org.roce4j.emulator.udp;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.roce4j.emulator.RnicCounter;
import org.roce4j.testing.RequiredInCi;
import org.roce4j.verbs.Gid;
import org.roce4j.verbs.Mtu;
import org.roce4j.verbs.Qp;
import org.roce4j.verbs.QpType;
import org.roce4j.verbs.RecvWr;
import org.roce4j.verbs.SendWr;
import org.roce4j.verbs.WcStatus;
import org.roce4j.verbs.WorkCompletion;

@Timeout(120)
class BurstAndIpv6Test {

    /** Udp RcvbufErrors of /proc/net/snmp: datagrams the kernel dropped for a full socket buffer (all sockets). */
    private static long kernelReceiveBufferDrops() throws IOException {
        List<String> lines = Files.readAllLines(Path.of("/proc/net/snmp")).stream().filter(l -> l.startsWith("Udp:")).toList();
        List<String> names = List.of(lines.get(0).split("\\s+"));
        return Long.parseLong(lines.get(1).split("\\s+")[names.indexOf("RcvbufErrors")]);
    }

    @Test
    @DisplayName("A burst far bigger than the receiver's socket buffer (a 2 MiB WRITE, 2048 packets; bursts of 32 "
            + "1-KiB frames at 30 k frames/s into SO_RCVBUF 16 KiB, ~6 datagrams): the kernel drops, RC retransmission recovers, every byte arrives")
    void burstBiggerThanTheSocketBuffer() throws Exception {
        UdpLinkConfig bursty = UdpLinkConfig.DEFAULT.withBurst(32).withPacketsPerSecond(30_000).withTransmitQueueFrames(256);
        long kernelDropsBefore = kernelReceiveBufferDrops();
        try (UdpSide a = new UdpSide("rxe6", "127.0.0.6", bursty);
             UdpSide b = new UdpSide("rxe7", "127.0.0.7", bursty.withReceiveBufferBytes(16 << 10))) {
            int qps = 1;
            int length = 2 << 20;
            Qp[][] pairs = new Qp[qps][];
            for (int i = 0; i < qps; i++) {
                // ACK timeout 15 (134 ms, not 67 ms): every burst loses most of its frames and the
                // sequence NAKs recover them; the timer covers a burst lost whole, and seven 67 ms
                // expiries in a row happened while a loaded 2-core machine did not run the receiver.
                pairs[i] = UdpSide.pair(a, b, QpType.RC, Mtu.MTU_1024, rts -> rts.timeout(15));
                UdpSide.fill(a.memory, (long) i * length, length, i);
            }
            for (int i = 0; i < qps; i++) {
                pairs[i][0].postSend(SendWr.rdmaWrite(i, a.mr, (long) i * length, length,
                        b.mr.address() + (long) i * length, b.mr.rkey()));
            }
            for (int i = 0; i < qps; i++) {
                WorkCompletion wc = a.pollOne();
                assertThat(wc.status()).as("WRITE %d", wc.wrId()).isEqualTo(WcStatus.SUCCESS);
            }
            UdpSide.assertSameBytes(a.memory, 0, b.memory, 0, qps * length);
            long retransmitted = a.rnic.rnic().counter(RnicCounter.RETRANSMITTED_PACKETS);
            long kernelDrops = kernelReceiveBufferDrops() - kernelDropsBefore;
            System.out.println("burst: kernel dropped " + kernelDrops + " datagrams, RNIC retransmitted " + retransmitted
                    + " packets; link " + a.rnic.linkCounters());
            assertThat(kernelDrops).as("the bursts overflowed the receive buffer").isPositive();
            assertThat(retransmitted).as("RC went back for what was lost").isPositive();
        }
    }

    @Test
    @DisplayName("NIO transport (epoll off): RC SEND of 64 KiB between two devices, data checked")
    void nioTransport() throws Exception {
        UdpLinkConfig nio = UdpLinkConfig.DEFAULT.withEpoll(false);
        try (UdpSide a = new UdpSide("rxe8", "127.0.0.8", nio); UdpSide b = new UdpSide("rxe9", "127.0.0.9", nio)) {
            assertThat(a.rnic.transport()).isEqualTo("nio");
            Qp[] qp = UdpSide.pair(a, b, QpType.RC, Mtu.MTU_4096);
            UdpSide.fill(a.memory, 0, 65536, 5);
            qp[1].postRecv(RecvWr.of(1, b.mr, 0, 65536));
            qp[0].postSend(SendWr.send(2, a.mr, 0, 65536));
            assertThat(a.pollOne().status()).isEqualTo(WcStatus.SUCCESS);
            assertThat(b.pollOne().byteLen()).isEqualTo(65536);
            UdpSide.assertSameBytes(a.memory, 0, b.memory, 0, 65536);
        }
    }

    @Test
    @DisplayName("IPv6 on ::1: GID 1 is ::1; RC WRITE/READ between two QPs of the device through the kernel, "
            + "every ICRC fully verified; a corrupt IPv6 frame is dropped")
    void ipv6Loopback() throws Exception {
        UdpSide a;
        try {
            a = new UdpSide("rxe10", "::1", UdpLinkConfig.DEFAULT);
        } catch (IOException e) {
            RequiredInCi.require(false, "IPv6 loopback (::1) for the UDP link: " + e.getMessage());
            return;
        }
        try (a) {
            assertThat(a.gid()).isEqualTo(Gid.parse("::1"));
            Qp q1 = a.createQp(QpType.RC, 64);
            Qp q2 = a.createQp(QpType.RC, 64);
            UdpSide.connect(q1, q2.qpNum(), a.gid(), 1, 2, Mtu.MTU_1024, rts -> { });
            UdpSide.connect(q2, q1.qpNum(), a.gid(), 2, 1, Mtu.MTU_1024, rts -> { });
            UdpSide.fill(a.memory, 0, 50_000, 6);
            q1.postSend(SendWr.rdmaWrite(1, a.mr, 0, 50_000, a.mr.address() + 1_000_000, a.mr.rkey()));
            assertThat(a.pollOne().status()).isEqualTo(WcStatus.SUCCESS);
            UdpSide.assertSameBytes(a.memory, 0, a.memory, 1_000_000, 50_000);
            q2.postSend(SendWr.rdmaRead(2, a.mr, 2_000_000, 50_000, a.mr.address(), a.mr.rkey()));
            assertThat(a.pollOne().status()).isEqualTo(WcStatus.SUCCESS);
            UdpSide.assertSameBytes(a.memory, 0, a.memory, 2_000_000, 50_000);
            UdpLinkCounters link = a.rnic.linkCounters();
            assertThat(link.icrcValid()).isEqualTo(link.datagramsReceived()).isPositive();
            assertThat(link.icrcIdRecovered()).isZero();

            try (RawPeer peer = new RawPeer("::1")) {
                byte[] datagram = peer.datagram(RawPeer.rcSend(q2.qpNum(), 0, new byte[16]), a.rnic.address(), 0);
                datagram[14] ^= 0x10;
                long invalid = link.icrcInvalid();
                peer.send(datagram, a.rnic.address());
                UdpLinkTest.eventually(() -> a.rnic.linkCounters().icrcInvalid() == invalid + 1, "IPv6 corrupt frame dropped");
                assertThat(a.rnic.rnic().dropped(org.roce4j.wire.DropReason.BAD_ICRC)).isEqualTo(1);
            }
        }
    }
}
