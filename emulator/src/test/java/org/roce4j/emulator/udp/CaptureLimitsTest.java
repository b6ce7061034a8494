package org.roce4j.emulator.udp;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
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
 * The UDP link's capture is bounded (issue 13): a file size limit, and an option to leave out
 * received datagrams whose ICRC does not verify — anyone on the network can send to port 4791.
 */
@Timeout(60)
class CaptureLimitsTest {

    private static List<byte[]> records(Path pcap) throws Exception {
        List<byte[]> frames = new ArrayList<>();
        try (PcapReader reader = PcapReader.open(pcap)) {
            for (PcapRecord record : reader) {
                frames.add(record.data());
            }
        }
        return frames;
    }

    @Test
    @DisplayName("UdpLinkConfig.tapMaxBytes: a 200 KB WRITE (~200 frames) into a 64 KiB-limited capture stops the "
            + "file at the limit, whole records only, and counts the frames left out")
    void theCaptureStopsAtItsSizeLimit(@TempDir Path dir) throws Exception {
        Path pcap = dir.resolve("limited.pcap");
        int limit = 64 << 10;
        try (UdpSide a = new UdpSide("rxe13t", "127.0.13.3", UdpLinkConfig.DEFAULT.withTapMaxBytes(limit));
             UdpSide b = new UdpSide("rxe13u", "127.0.13.4", UdpLinkConfig.DEFAULT)) {
            a.rnic.tap(pcap);
            Qp[] qp = UdpSide.pair(a, b, QpType.RC, Mtu.MTU_1024);
            qp[0].postSend(SendWr.rdmaWrite(1, a.mr, 0, 200_000, b.mr.address(), b.mr.rkey()));
            assertThat(a.pollOne().status()).isEqualTo(WcStatus.SUCCESS);
            a.rnic.close(); // flushes the tap
            PcapTapCounters tap = a.rnic.tapCounters();
            assertThat(Files.size(pcap)).isLessThanOrEqualTo(limit).isGreaterThan(limit - 2_000)
                    .isEqualTo(tap.bytesWritten());
            assertThat(records(pcap)).hasSize((int) tap.framesWritten());
            assertThat(tap.overLimit()).as("frames past the limit").isPositive();
            assertThat(tap.framesWritten() + tap.overLimit()).as("every frame either written or counted")
                    .isGreaterThanOrEqualTo(196 + 1);
        }
    }

    @Test
    @DisplayName("UdpLinkConfig.tapValidFramesOnly: a datagram with a bad ICRC is left out of the capture and "
            + "counted; without the option it is recorded (as received, bad ICRC and all)")
    void invalidDatagramsAreLeftOutWhenAsked(@TempDir Path dir) throws Exception {
        assertThat(capturedWithACorruptDatagram(dir.resolve("valid.pcap"), true)).isZero();
        assertThat(capturedWithACorruptDatagram(dir.resolve("all.pcap"), false)).isOne();
    }

    /** Captures a corrupt and a valid datagram from a raw peer; returns how many recorded frames fail the ICRC. */
    private static int capturedWithACorruptDatagram(Path pcap, boolean validOnly) throws Exception {
        try (UdpSide a = new UdpSide("rxe13v", "127.0.13.5", UdpLinkConfig.DEFAULT.withTapValidFramesOnly(validOnly));
             RawPeer peer = new RawPeer("127.0.13.6")) {
            a.rnic.tap(pcap);
            byte[] corrupt = peer.datagram(RawPeer.rcSend(99, 0, new byte[16]), a.rnic.address(), 0);
            corrupt[14] ^= 0x10;
            byte[] valid = peer.datagram(RawPeer.rcSend(99, 1, new byte[16]), a.rnic.address(), 0);
            peer.send(corrupt, a.rnic.address());
            peer.send(valid, a.rnic.address());
            UdpLinkTest.eventually(() -> a.rnic.linkCounters().datagramsReceived() == 2, "both datagrams received");
            a.rnic.close();
            PcapTapCounters tap = a.rnic.tapCounters();
            assertThat(tap.invalidSkipped()).isEqualTo(validOnly ? 1 : 0);
            assertThat(tap.framesWritten()).isEqualTo(validOnly ? 1 : 2);
            PacketInfo info = new PacketInfo();
            int bad = 0;
            for (byte[] frame : records(pcap)) {
                if (!info.parseFrame(frame, 0, frame.length)) {
                    bad++;
                }
            }
            return bad;
        }
    }
}
