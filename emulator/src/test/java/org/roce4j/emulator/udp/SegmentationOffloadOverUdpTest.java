package org.roce4j.emulator.udp;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.roce4j.verbs.Mtu;
import org.roce4j.verbs.Qp;
import org.roce4j.verbs.QpType;
import org.roce4j.verbs.SendWr;
import org.roce4j.verbs.WcStatus;
import org.roce4j.wire.PacketInfo;
import org.roce4j.wire.pcap.PcapReader;
import org.roce4j.wire.pcap.PcapRecord;

/**
 * UDP segmentation offload end to end on loopback: a long WRITE and a long READ leave in UDP GSO sends,
 * arrive through UDP_GRO reads cut back into frames, and every byte lands; the tap shows each frame with
 * the Identification the kernel gives its segment and an ICRC that verifies with it.
 */
@Timeout(60)
class SegmentationOffloadOverUdpTest {
    private static final int LENGTH = 1 << 20;

    @Test
    @DisplayName("A 1 MiB WRITE and READ with segmentation offload: GSO sends, every frame accepted, every byte placed")
    void longTransfersLeaveInSegmentedSends(@TempDir Path dir) throws Exception {
        Path tapped = dir.resolve("a.pcap");
        UdpLinkConfig config = UdpLinkConfig.DEFAULT.withActiveMtu(Mtu.MTU_4096).withSegmentationOffload(true);
        try (UdpSide a = new UdpSide("rxe-gso-a", "127.0.0.46", config, 4L * LENGTH);
             UdpSide b = new UdpSide("rxe-gso-b", "127.0.0.47", config, 4L * LENGTH)) {
            a.rnic.tap(tapped);
            Qp[] qp = UdpSide.pair(a, b, QpType.RC, Mtu.MTU_4096);
            UdpSide.fill(a.memory, 0, LENGTH, 46);
            UdpSide.fill(b.memory, 2L * LENGTH, LENGTH, 47);
            qp[0].postSend(SendWr.rdmaWrite(1, a.mr, 0, LENGTH, b.mr.address(), b.mr.rkey()));
            assertThat(a.pollOne().status()).isEqualTo(WcStatus.SUCCESS);
            UdpSide.assertSameBytes(a.memory, 0, b.memory, 0, LENGTH);
            qp[0].postSend(SendWr.rdmaRead(2, a.mr, LENGTH, LENGTH, b.mr.address() + 2L * LENGTH, b.mr.rkey()));
            assertThat(a.pollOne().status()).isEqualTo(WcStatus.SUCCESS);
            UdpSide.assertSameBytes(b.memory, 2L * LENGTH, a.memory, LENGTH, LENGTH);

            UdpLinkCounters sent = a.rnic.linkCounters();
            UdpLinkCounters received = b.rnic.linkCounters();
            assertThat(sent.segmentedSends()).as("the WRITE's GSO sends").isGreaterThan(0);
            assertThat(sent.framesSent()).as("a GSO send counts each of its frames").isGreaterThanOrEqualTo(LENGTH / 4096);
            assertThat(received.segmentedSends()).as("the READ responses' GSO sends").isGreaterThan(0);
            for (UdpLinkCounters c : List.of(sent, received)) {
                assertThat(c.oversizeDrops()).as("a GRO read is cut into frames").isZero();
                assertThat(c.icrcInvalid()).isZero();
                assertThat(c.icrcIdOutsideWindow()).isZero();
                assertThat(c.sendFailures()).isZero();
            }
        }
        // The tap shows the frames as the kernel sends them: a run's segments numbered 0, 1, 2, ...
        PacketInfo info = new PacketInfo();
        int renumbered = 0;
        int previous = -1;
        try (PcapReader reader = PcapReader.open(tapped)) {
            for (PcapRecord record : reader) {
                byte[] f = record.data();
                if (f[14 + 15] != 46) {
                    continue; // received, not sent
                }
                assertThat(info.parseFrame(f, 0, f.length)).as("ICRC and headers: %s", info.dropDetail()).isTrue();
                int id = (f[14 + 4] & 0xFF) << 8 | f[14 + 5] & 0xFF;
                assertThat(id == 0 || id == previous + 1).as("Identification %d after %d", id, previous).isTrue();
                renumbered += id > 0 ? 1 : 0;
                previous = id;
            }
        }
        assertThat(renumbered).as("frames sent as segment 1 or later of a run").isGreaterThan(LENGTH / 4096 / 2);
    }

    @Test
    @DisplayName("Without segmentation offload (the default) every frame is its own send, with Identification 0")
    void offloadOff() throws Exception {
        UdpLinkConfig config = UdpLinkConfig.DEFAULT.withActiveMtu(Mtu.MTU_4096);
        assertThat(config.segmentationOffload()).as("off by default").isFalse();
        try (UdpSide a = new UdpSide("rxe-gso-c", "127.0.0.48", config, 2L * LENGTH);
             UdpSide b = new UdpSide("rxe-gso-d", "127.0.0.49", config, 2L * LENGTH)) {
            Qp[] qp = UdpSide.pair(a, b, QpType.RC, Mtu.MTU_4096);
            UdpSide.fill(a.memory, 0, LENGTH, 48);
            qp[0].postSend(SendWr.rdmaWrite(1, a.mr, 0, LENGTH, b.mr.address(), b.mr.rkey()));
            assertThat(a.pollOne().status()).isEqualTo(WcStatus.SUCCESS);
            UdpSide.assertSameBytes(a.memory, 0, b.memory, 0, LENGTH);
            assertThat(a.rnic.linkCounters().segmentedSends()).isZero();
            assertThat(b.rnic.linkCounters().icrcIdRecovered()).as("every frame had Identification 0").isZero();
        }
    }
}
