package org.roce4j.emulator.udp;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.roce4j.testing.RequiredInCi;
import org.roce4j.verbs.Mtu;
import org.roce4j.verbs.Qp;
import org.roce4j.verbs.QpType;
import org.roce4j.verbs.SendWr;
import org.roce4j.verbs.WcStatus;
import org.roce4j.wire.PacketInfo;
import org.roce4j.wire.pcap.PcapReader;
import org.roce4j.wire.pcap.PcapRecord;

/**
 * What the kernel really puts on lo, captured by tshark: DF=1, Identification 0, UDP source port
 * 4791 and a good ICRC on every frame (checked by wire's PacketInfo: tshark does not check the
 * RoCEv2 ICRC), and the link's own tap shows the same IP headers and bytes. Without tshark (or the
 * right to capture) the test is skipped loudly — and fails in CI.
 */
@Timeout(60)
class LoopbackCaptureTest {

    @Test
    @DisplayName("Captured on lo: every RoCEv2 frame has DF=1, ID 0, source port 4791, a valid ICRC; the tap agrees")
    void wireMatchesTheIcrcAndTheTap(@TempDir Path dir) throws Exception {
        Path captured = dir.resolve("lo.pcap");
        Path tapped = dir.resolve("tap.pcap");
        Process tshark = startTshark(captured);
        try (UdpSide a = new UdpSide("rxe4", "127.0.0.4", UdpLinkConfig.DEFAULT);
             UdpSide b = new UdpSide("rxe5", "127.0.0.5", UdpLinkConfig.DEFAULT)) {
            a.rnic.tap(tapped);
            Qp[] qp = UdpSide.pair(a, b, QpType.RC, Mtu.MTU_1024);
            UdpSide.fill(a.memory, 0, 20_000, 9);
            qp[0].postSend(SendWr.rdmaWrite(1, a.mr, 0, 20_000, b.mr.address(), b.mr.rkey()));
            assertThat(a.pollOne().status()).isEqualTo(WcStatus.SUCCESS);
            qp[0].postSend(SendWr.rdmaRead(2, a.mr, 100_000, 5_000, b.mr.address(), b.mr.rkey()));
            assertThat(a.pollOne().status()).isEqualTo(WcStatus.SUCCESS);
            UdpSide.assertSameBytes(a.memory, 0, b.memory, 0, 20_000);
            Thread.sleep(200); // let the last ACKs reach the capture
        } finally {
            tshark.destroy(); // SIGTERM: tshark writes what it has and exits
            tshark.waitFor(10, TimeUnit.SECONDS);
        }

        List<byte[]> wire = roceFrames(captured, null);
        assertThat(wire).as("frames captured on lo").hasSizeGreaterThanOrEqualTo(20 + 5 + 2);
        PacketInfo info = new PacketInfo();
        for (byte[] frame : wire) {
            assertThat(info.parseFrame(frame, 0, frame.length)).as("ICRC and headers: %s", info.dropDetail()).isTrue();
            int ip = info.ipOffset();
            assertThat(frame[ip + 6] & 0xE0).as("flags: DF").isEqualTo(0x40);
            assertThat((frame[ip + 4] & 0xFF) << 8 | frame[ip + 5] & 0xFF).as("Identification").isZero();
            assertThat((frame[ip + 20] & 0xFF) << 8 | frame[ip + 21] & 0xFF).as("UDP source port").isEqualTo(4791);
        }
        // The tap's sent frames are the captured frames from 127.0.0.4: same IP header, ports, lengths, payload.
        List<byte[]> sentOnWire = wire.stream().filter(f -> f[14 + 15] == 4).toList();
        List<byte[]> sentInTap = roceFrames(tapped, null).stream().filter(f -> f[14 + 15] == 4).toList();
        assertThat(sentInTap).hasSameSizeAs(sentOnWire);
        for (int i = 0; i < sentOnWire.size(); i++) {
            byte[] w = sentOnWire.get(i);
            byte[] t = sentInTap.get(i);
            assertThat(Arrays.copyOfRange(t, 14, 14 + 20)).as("IPv4 header of frame " + i).isEqualTo(Arrays.copyOfRange(w, 14, 14 + 20));
            assertThat(Arrays.copyOfRange(t, 34, 40)).as("UDP ports and length of frame " + i).isEqualTo(Arrays.copyOfRange(w, 34, 40));
            assertThat(Arrays.copyOfRange(t, 42, t.length)).as("RoCE bytes of frame " + i).isEqualTo(Arrays.copyOfRange(w, 42, w.length));
        }
        // and the tap's received frames decode with good ICRCs too
        for (byte[] frame : roceFrames(tapped, null)) {
            assertThat(info.parseFrame(frame, 0, frame.length)).as("tap frame: %s", info.dropDetail()).isTrue();
        }
    }

    @Test
    @DisplayName("Captured on lo with segmentation offload: each GSO send is the tap's frames back to back, numbered 0, 1, 2, ...")
    void segmentedSendsCarryTheTapsFrames(@TempDir Path dir) throws Exception {
        Path captured = dir.resolve("lo.pcap");
        Path tapped = dir.resolve("tap.pcap");
        Process tshark = startTshark(captured);
        UdpLinkConfig offload = UdpLinkConfig.DEFAULT.withSegmentationOffload(true);
        try (UdpSide a = new UdpSide("rxe4", "127.0.0.4", offload);
             UdpSide b = new UdpSide("rxe5", "127.0.0.5", offload)) {
            a.rnic.tap(tapped);
            Qp[] qp = UdpSide.pair(a, b, QpType.RC, Mtu.MTU_1024);
            UdpSide.fill(a.memory, 0, 20_000, 9);
            qp[0].postSend(SendWr.rdmaWrite(1, a.mr, 0, 20_000, b.mr.address(), b.mr.rkey()));
            assertThat(a.pollOne().status()).isEqualTo(WcStatus.SUCCESS);
            UdpSide.assertSameBytes(a.memory, 0, b.memory, 0, 20_000);
            assertThat(a.rnic.linkCounters().segmentedSends()).isGreaterThan(0);
            Thread.sleep(200);
        } finally {
            tshark.destroy();
            tshark.waitFor(10, TimeUnit.SECONDS);
        }
        // lo captures a GSO send before the kernel cuts it: one long UDP datagram from 127.0.0.4.
        List<byte[]> sentOnWire = roceFrames(captured, null).stream().filter(f -> f[14 + 15] == 4).toList();
        List<byte[]> sentInTap = roceFrames(tapped, null).stream().filter(f -> f[14 + 15] == 4).toList();
        int t = 0;
        boolean sawARun = false;
        for (byte[] w : sentOnWire) {
            int payload = ((w[38] & 0xFF) << 8 | w[39] & 0xFF) - 8;
            int at = 42;
            int segment = 0;
            while (at < 42 + payload) {
                byte[] tap = sentInTap.get(t++);
                int n = tap.length - 42;
                assertThat(Arrays.copyOfRange(w, at, at + n)).as("segment %d of a send: the tap's frame %d", segment, t - 1)
                        .isEqualTo(Arrays.copyOfRange(tap, 42, tap.length));
                assertThat((tap[14 + 4] & 0xFF) << 8 | tap[14 + 5] & 0xFF).as("its Identification").isEqualTo(segment);
                at += n;
                segment++;
            }
            sawARun |= segment > 1;
        }
        assertThat(t).as("every sent frame of the tap is on the wire").isEqualTo(sentInTap.size());
        assertThat(sawARun).isTrue();
    }

    private static List<byte[]> roceFrames(Path pcap, Object unused) throws IOException {
        List<byte[]> frames = new ArrayList<>();
        try (PcapReader reader = PcapReader.open(pcap)) {
            for (PcapRecord record : reader) {
                byte[] f = record.data();
                if (f.length > 42 && f[12] == 0x08 && f[13] == 0 && f[14 + 9] == 17
                        && ((f[36] & 0xFF) << 8 | f[37] & 0xFF) == 4791) {
                    frames.add(f);
                }
            }
        }
        return frames;
    }

    /** Starts tshark on lo and waits until it captures; aborts (skips) outside CI and fails in CI when it cannot. */
    private static Process startTshark(Path out) throws IOException, InterruptedException {
        Process process;
        try {
            process = new ProcessBuilder("tshark", "-i", "lo", "-f", "udp port 4791", "-F", "pcap", "-w", out.toString())
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        } catch (IOException e) {
            skipOrFail("tshark is not installed: " + e.getMessage());
            throw e;
        }
        CountDownLatch capturing = new CountDownLatch(1);
        StringBuilder said = new StringBuilder();
        Thread.ofPlatform().daemon().start(() -> {
            try (BufferedReader err = new BufferedReader(new InputStreamReader(process.getErrorStream()))) {
                String line;
                while ((line = err.readLine()) != null) {
                    synchronized (said) {
                        said.append(line).append('\n');
                    }
                    if (line.contains("Capturing on")) {
                        capturing.countDown();
                    }
                }
            } catch (IOException ignored) {
                // tshark ended
            }
        });
        if (!capturing.await(15, TimeUnit.SECONDS)) {
            process.destroy();
            synchronized (said) {
                skipOrFail("tshark does not capture on lo: " + said);
            }
        }
        Thread.sleep(300); // "Capturing on" comes just before the capture is really running
        assertThat(Files.exists(out) || process.isAlive()).isTrue();
        return process;
    }

    private static void skipOrFail(String message) {
        RequiredInCi.require(false, "LoopbackCaptureTest: " + message);
    }
}
