package org.roce4j.tools.analyze;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.roce4j.testing.RequiredInCi;
import org.roce4j.wire.pcap.CaptureReader;

/** analyze over real Soft-RoCE captures (../shared/reference-pcaps): rxe breaks no rule the check knows. */
class ReferenceCapturesAnalysisTest {
    /** The directory, or null (the test then passes vacuously, except under CI=true, where it fails). */
    private static Path referenceDir() {
        Path found = find();
        RequiredInCi.require(found != null, "the reference captures (../shared/reference-pcaps)");
        return found;
    }

    private static Path find() {
        Path dir = Path.of(System.getProperty("user.dir")).toAbsolutePath();
        for (; dir != null; dir = dir.getParent()) {
            Path candidate = dir.resolveSibling("shared").resolve("reference-pcaps");
            if (Files.isDirectory(candidate)) {
                return candidate;
            }
        }
        return null;
    }

    private static AnalysisReport analyze(Path file) throws IOException {
        try (CaptureReader reader = CaptureReader.open(file)) {
            return CaptureAnalysis.analyze(reader);
        }
    }

    @Test
    @DisplayName("every rxe reference capture analyses clean")
    void everyReferenceCaptureIsClean() throws IOException {
        Path dir = referenceDir();
        if (dir == null) {
            return;
        }
        List<Path> files;
        try (Stream<Path> listing = Files.list(dir)) {
            files = listing.filter(f -> f.toString().endsWith(".pcap") || f.toString().endsWith(".pcapng")).sorted().toList();
        }
        assertThat(files).hasSizeGreaterThanOrEqualTo(12);
        for (Path file : files) {
            AnalysisReport report = analyze(file);
            assertThat(report.violations()).as(file.getFileName().toString()).isEmpty();
            assertThat(report.clean()).isTrue();
        }
        // ibv_ud_pingpong -n 5 -s 512: each side's UD QP sends its 5 messages (plus nothing else) as SEND Only
        AnalysisReport ud = analyze(dir.resolve("rxe_ud_pingpong.pcap"));
        assertThat(ud.rcFlows).isEmpty();
        assertThat(ud.datagramFlows).hasSize(2).allSatisfy(flow -> {
            assertThat(flow.messages).isEqualTo(5);
            assertThat(flow.psnGaps).isZero();
        });
    }

    /**
     * The hand count, made with {@code tshark -r rxe_write_lat_lossy.pcap -Y infiniband -T fields -e frame.number
     * -e ip.src -e infiniband.bth.opcode -e infiniband.bth.psn -e infiniband.aeth.syndrome} and read per sender:
     * a request whose PSN is not above the highest that sender sent before is resent; a resend starts a new
     * go-back unless it follows the previous resent PSN, or skips forward with nothing received in between
     * (frame 197: FIRST 2383971 resent at 196, MIDDLE 2383972 lost again, LAST 2383973 6 µs later: one
     * go-back); a go-back is a SEQUENCE_NAK one when the other side sent a NAK with syndrome 96 (code 0, PSN
     * sequence error) since that sender's previous go-back, else a local ACK timeout (rxe sent no RNR NAK,
     * and ib_write_lat issues no READ or atomic, so no other cause can occur). Counted by reading the list,
     * and again with an awk script over the same fields: 192.168.77.2 resent 29 packets in 13 go-backs, 6
     * after a NAK, 7 after a timeout, 6 PSN gaps; 192.168.77.3 resent 38 in 16, 4 and 12, 7 gaps with 10
     * PSNs missing. The capture holds 10 NAKs (syndrome 96), each followed by a go-back.
     */
    @Test
    @DisplayName("rxe_write_lat_lossy.pcap: the retransmission causes and PSN gaps the tshark hand count shows")
    void lossyCaptureShowsTheHandCountedCauses() throws IOException {
        Path dir = referenceDir();
        if (dir == null) {
            return;
        }
        AnalysisReport report = analyze(dir.resolve("rxe_write_lat_lossy.pcap"));
        assertThat(report.clean()).isTrue();
        assertThat(report.rcFlows).hasSize(2);
        RcFlow server = report.rcFlows.stream().filter(f -> f.requesterName().startsWith("192.168.77.2 ")).findFirst().orElseThrow();
        RcFlow client = report.rcFlows.stream().filter(f -> f.requesterName().startsWith("192.168.77.3 ")).findFirst().orElseThrow();
        assertThat(server.retransmissions).isEqualTo(Map.of(RetransmissionCause.SEQUENCE_NAK, 6L, RetransmissionCause.LOCAL_ACK_TIMEOUT, 7L));
        assertThat(server.resentPackets).isEqualTo(29);
        assertThat(server.psnGaps).isEqualTo(6);
        assertThat(server.naksByCode).isEqualTo(Map.of("PSN_SEQUENCE_ERROR", 6L));
        assertThat(client.retransmissions).isEqualTo(Map.of(RetransmissionCause.SEQUENCE_NAK, 4L, RetransmissionCause.LOCAL_ACK_TIMEOUT, 12L));
        assertThat(client.resentPackets).isEqualTo(38);
        assertThat(client.psnGaps).isEqualTo(7);
        assertThat(client.missingPsns).isEqualTo(10);
        assertThat(client.naksByCode).isEqualTo(Map.of("PSN_SEQUENCE_ERROR", 4L));
        // ib_write_lat -s 3000 -n 20: 20 WRITEs of 3000 bytes each way, every one acknowledged in the end
        for (RcFlow flow : List.of(server, client)) {
            assertThat(flow.messagesAcknowledged).isEqualTo(20);
            assertThat(flow.goodput.totalBytes()).isEqualTo(20 * 3000);
            assertThat(flow.rnrNaks).isZero();
        }
    }
}
