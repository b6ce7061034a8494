package org.roce4j.tools;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.roce4j.testing.RequiredInCi;
import org.roce4j.wire.pcap.PcapRecord;

/** decode over real Soft-RoCE captures (../shared/reference-pcaps, when this machine has them). */
class ReferenceCapturesTest {

    @TestFactory
    @DisplayName("decode of each reference capture exits 0 and counts exactly its UDP/4791 frames as RoCE")
    Stream<DynamicTest> referenceCaptures() throws IOException {
        Path dir = TestCaptures.repoRoot().resolveSibling("shared").resolve("reference-pcaps");
        RequiredInCi.require(Files.isDirectory(dir), "the reference captures at " + dir + " (../shared)");
        List<Path> files;
        try (Stream<Path> listing = Files.list(dir)) {
            files = listing.filter(p -> p.toString().endsWith(".pcap")).sorted().toList();
        }
        assertThat(files).isNotEmpty();
        return files.stream().map(file -> DynamicTest.dynamicTest(file.getFileName().toString(), () -> {
            long udp4791 = 0;
            for (PcapRecord record : TestCaptures.read(file)) {
                udp4791 += isUdpToPort4791(record.data()) ? 1 : 0;
            }

            TestCaptures.Run run = TestCaptures.run("decode", file.toString());

            assertThat(run.exitCode()).as(run.err()).isZero();
            assertThat(udp4791).isPositive();
            assertThat(run.lines()).contains(String.format("RoCE frames:           %d", udp4791),
                    "ICRC failures:         0", "malformed RoCE frames: 0");
        }));
    }

    @Test
    @DisplayName("decode rxe_rping_reject.pcap: under each CM MAD's summary line, a line naming the message")
    void cmMadsGetTheirMessageLine() {
        Path file = TestCaptures.repoRoot().resolveSibling("shared").resolve("reference-pcaps").resolve("rxe_rping_reject.pcap");

        TestCaptures.Run run = TestCaptures.run("decode", file.toString());

        assertThat(run.exitCode()).as(run.err()).isZero();
        assertThat(run.lines().subList(0, 4)).satisfiesExactly(
                first -> assertThat(first).startsWith("1 0.000000000 192.168.77.3 → 192.168.77.2 UD Send Only QP=0x000001"),
                req -> assertThat(req).isEqualTo("    CM REQ comm 0x9f51d3bd sid 0x000000000106270f qpn 0x000011"
                        + " psn 0x01093c mtu 1024 pdata 56 B (rdma_cm 192.168.77.3:33725 → 192.168.77.2:9999)"),
                second -> assertThat(second).startsWith("2 0.013691000 192.168.77.2 → 192.168.77.3 UD Send Only QP=0x000001"),
                rej -> assertThat(rej).isEqualTo("    CM REJ reason 8 (invalid service ID) comm 0x00000000 remote 0x9f51d3bd"));
    }

    /** An independent look at the bytes: Ethernet (optionally 802.1Q), IPv4 or IPv6, UDP to 4791. */
    private static boolean isUdpToPort4791(byte[] frame) {
        int ip = 14;
        int etherType = u16(frame, 12);
        if (etherType == 0x8100) {
            etherType = u16(frame, 16);
            ip = 18;
        }
        int udp;
        if (etherType == 0x0800 && (frame[ip + 9] & 0xFF) == 17) {
            udp = ip + (frame[ip] & 0x0F) * 4;
        } else if (etherType == 0x86DD && (frame[ip + 6] & 0xFF) == 17) {
            udp = ip + 40;
        } else {
            return false;
        }
        return frame.length >= udp + 4 && u16(frame, udp + 2) == 4791;
    }

    private static int u16(byte[] b, int off) {
        return (b[off] & 0xFF) << 8 | b[off + 1] & 0xFF;
    }
}
