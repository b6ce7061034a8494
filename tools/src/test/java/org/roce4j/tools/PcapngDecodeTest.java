package org.roce4j.tools;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.roce4j.testing.RequiredInCi;
import org.roce4j.wire.pcap.PcapRecord;
import org.roce4j.wire.pcap.PcapngWriter;

/**
 * {@code roce4j decode} reads pcapng, as Wireshark's tools write it and as roce4j does, and Wireshark reads
 * roce4j's pcapng with its comments. Without tshark and editcap the tool tests are skipped loudly, and fail in CI.
 */
class PcapngDecodeTest {
    private static final Path ALL_OPCODES = TestCaptures.committed(AllOpcodesCapture.IPV4_FILE);

    @Test
    @DisplayName("decode of roce4j's pcapng lists the same frames as of the pcap, each comment under its frame")
    void roce4jsPcapngDecodesLikeThePcap(@TempDir Path dir) throws IOException {
        Path pcapng = writePcapng(dir.resolve("all-opcodes.pcapng"), "ICRC corrupted by rule 1");

        TestCaptures.Run pcap = TestCaptures.run("decode", ALL_OPCODES.toString());
        TestCaptures.Run ng = TestCaptures.run("decode", pcapng.toString());

        assertThat(ng.exitCode()).isEqualTo(pcap.exitCode()).isZero();
        List<String> expected = new ArrayList<>(pcap.lines());
        expected.add(1, "    comment: ICRC corrupted by rule 1");
        assertThat(ng.lines()).isEqualTo(expected);
    }

    @Test
    @DisplayName("decode of pcapng that editcap made from a pcap, with a comment, lists the pcap's frames and the comment")
    void editcapsPcapngDecodes(@TempDir Path dir) throws Exception {
        String editcap = tool("editcap");
        Path pcapng = dir.resolve("editcap.pcapng");
        run(editcap, "-F", "pcapng", "-a", "2:checked by hand", ALL_OPCODES.toString(), pcapng.toString());

        TestCaptures.Run pcap = TestCaptures.run("decode", ALL_OPCODES.toString());
        TestCaptures.Run ng = TestCaptures.run("decode", pcapng.toString());

        List<String> expected = new ArrayList<>(pcap.lines());
        expected.add(2, "    comment: checked by hand");
        assertThat(ng.lines()).isEqualTo(expected);
        assertThat(ng.exitCode()).isZero();
    }

    @Test
    @DisplayName("tshark reads roce4j's pcapng: every frame, with its comment")
    void tsharkReadsRoce4jsPcapng(@TempDir Path dir) throws Exception {
        String tshark = tool("tshark");
        Path pcapng = writePcapng(dir.resolve("all-opcodes.pcapng"), "dropped by rule 2");

        List<String> lines = run(tshark, "-r", pcapng.toString(), "-n", "-T", "fields", "-e", "frame.number",
                "-e", "frame.comment");

        assertThat(lines).hasSize(TestCaptures.read(ALL_OPCODES).size());
        assertThat(lines.get(0)).isEqualTo("1\tdropped by rule 2");
        assertThat(lines.get(1)).isEqualTo("2\t");
    }

    @Test
    @DisplayName("decode of dumpcap's own live pcapng (lo, RoCEv2 datagrams sent by the test) lists the frames it captured")
    void dumpcapsLivePcapngDecodes(@TempDir Path dir) throws Exception {
        String dumpcap = tool("dumpcap");
        Path pcapng = dir.resolve("live.pcapng");
        PcapRecord first = TestCaptures.read(ALL_OPCODES).getFirst();
        try (DatagramChannel channel = DatagramChannel.open()) {
            channel.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            int port = ((InetSocketAddress) channel.getLocalAddress()).getPort();
            Process capture = new ProcessBuilder(dumpcap, "-i", "lo", "-f", "udp src port " + port, "-c", "3",
                    "-a", "duration:30", "-w", pcapng.toString()).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            BufferedReader log = new BufferedReader(new InputStreamReader(capture.getErrorStream(), StandardCharsets.UTF_8));
            for (String line = log.readLine(); line != null && !line.startsWith("Capturing on"); line = log.readLine()) {
                // dumpcap says when it captures
            }
            InetSocketAddress roce = new InetSocketAddress(InetAddress.getLoopbackAddress(), 4791);
            byte[] frame = first.data();
            // dumpcap says "Capturing on" a little before its filter is in place: send until it has three
            for (int sent = 0; capture.isAlive() && sent < 300; sent++) { // the UDP payload: BTH to ICRC
                channel.send(ByteBuffer.wrap(frame, 42, frame.length - 42), roce);
                capture.waitFor(100, TimeUnit.MILLISECONDS);
            }
            assertThat(capture.waitFor(5, TimeUnit.SECONDS)).as("dumpcap ended after 3 packets").isTrue();
            assertThat(capture.exitValue()).as("dumpcap exit code").isZero();
        }

        TestCaptures.Run run = TestCaptures.run("decode", pcapng.toString());

        // 127.0.0.1 is not the address the ICRC was computed over, so each is listed as ICRC BAD (exit 1)
        assertThat(run.exitCode()).isEqualTo(1);
        assertThat(run.lines()).hasSize(3 + 6);
        assertThat(run.lines().subList(0, 3)).allSatisfy(line -> assertThat(line)
                .contains("127.0.0.1 → 127.0.0.1 RC Send First QP=0x000012").endsWith("ICRC BAD"));
        assertThat(run.lines()).contains("frames:                3", "RoCE frames:           3");
    }

    /** All-opcodes as pcapng, with one comment on its first frame. */
    private static Path writePcapng(Path file, String comment) throws IOException {
        List<PcapRecord> records = TestCaptures.read(ALL_OPCODES);
        try (PcapngWriter writer = PcapngWriter.create(file)) {
            for (int i = 0; i < records.size(); i++) {
                PcapRecord record = records.get(i);
                writer.write(0, record.timestampNanos(), record.data(), 0, record.data().length,
                        i == 0 ? List.of(comment) : List.of());
            }
        }
        return file;
    }

    private static String tool(String name) {
        String path = TsharkCrossCheckTest.which(name);
        if (path == null) {
            RequiredInCi.require(false, name + ": the pcapng cross-check did NOT run (apt-get install tshark)");
        }
        return path;
    }

    private static List<String> run(String... command) throws Exception {
        Process process = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.DISCARD).start();
        byte[] out = process.getInputStream().readAllBytes();
        assertThat(process.waitFor(60, TimeUnit.SECONDS)).as("%s ended", command[0]).isTrue();
        assertThat(process.exitValue()).as("%s exit code", command[0]).isZero();
        return new String(out, StandardCharsets.UTF_8).lines().toList();
    }
}
