package org.roce4j.tools;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.roce4j.testing.RequiredInCi;
import org.roce4j.wire.Bth;
import org.roce4j.wire.EthernetHeader;
import org.roce4j.wire.FrameEncoder;
import org.roce4j.wire.Ipv4Header;
import org.roce4j.wire.MacAddress;
import org.roce4j.wire.Opcode;
import org.roce4j.wire.RoceFrame;
import org.roce4j.wire.RocePacket;
import org.roce4j.wire.UdpHeader;
import org.roce4j.wire.pcap.PcapWriter;

/** {@code roce4j wireshark}: roce4j's Wireshark profile, checked with tshark. */
class WiresharkCommandTest {

    @TempDir
    Path dir;

    private static String tshark;

    @BeforeAll
    static void findTshark() {
        tshark = TsharkCrossCheckTest.which("tshark");
    }

    @Test
    @DisplayName("a SEND of the integers 0, 1, 2, ... is RPC-over-RDMA's 'RDMA_DONE' to a bare tshark and an RC SEND with the profile")
    void theProfileDisablesThePayloadHeuristicsThatMisreadRdma() throws Exception {
        RequiredInCi.require(tshark != null, "tshark: the Wireshark profile was NOT checked");
        Path pcap = dir.resolve("integers.pcap");
        writeSendOfIntegers(pcap);

        assertThat(String.join("\n", run(List.of(tshark, "-r", pcap.toString(), "-n"))))
                .as("the heuristic this profile exists for still misfires without it").contains("RDMA_DONE");
        TestCaptures.Run run = TestCaptures.run("wireshark", "--tshark", pcap.toString());
        assertThat(run.exitCode()).as(run.err()).isZero();
        assertThat(run.out()).doesNotContain("Malformed", "RDMA_DONE").contains("RC Send Only QP=0x000012")
                .containsPattern("0x000012 +4660 +Reliable Connection \\(RC\\) - SEND Only"); // QP, PSN and opcode columns
    }

    @Test
    @DisplayName("colours: the NAK, the retransmitted requests and the frames the fault plan dropped of a lossy demo, as tshark --color names them")
    void theProfileColoursNaksRetransmissionsAndFaults() throws Exception {
        RequiredInCi.require(tshark != null, "tshark: the Wireshark profile was NOT checked");
        Path pcapng = dir.resolve("lossy.pcapng");
        assertThat(TestCaptures.run("demo", "--pcap", pcapng.toString(), "--loss", "0.2", "--seed", "4").exitCode()).isZero();

        TestCaptures.Run run = TestCaptures.run("wireshark", "--tshark", pcapng.toString(), "--", "--color", "-T", "fields",
                "-e", "frame.coloring_rule.name");
        assertThat(run.exitCode()).as(run.err()).isZero();
        assertThat(run.lines()).contains("RoCE NAK", "roce4j: retransmitted", "roce4j: dropped by the fault plan");
        TestCaptures.Run decode = TestCaptures.run("decode", pcapng.toString());
        assertThat(run.lines()).filteredOn("roce4j: retransmitted"::equals)
                .hasSize((int) decode.lines().stream().filter(l -> l.equals("    comment: retransmission")).count());
    }

    @Test
    @DisplayName("--profile-dir writes the profile's three files, as Wireshark's Import Profile takes them")
    void theProfileCanBeWrittenOut() throws Exception {
        Path profile = dir.resolve("profiles").resolve("roce4j");
        TestCaptures.Run run = TestCaptures.run("wireshark", "--profile-dir", profile.toString());
        assertThat(run.exitCode()).isZero();
        assertThat(profile.resolve("heuristic_protos")).content().contains("rpcrdma_infiniband,0");
        assertThat(profile.resolve("colorfilters")).content().contains("@RoCE RNR NAK@");
        assertThat(profile.resolve("preferences")).content().contains("%Cus:infiniband.bth.psn");
    }

    /**
     * One RC SEND Only, PSN 4660, whose payload is the big-endian 32-bit integers 0 .. 63, as any counter array:
     * word 1 is 1 (RFC 8166's version) and word 3 is 3 (RDMA_DONE), so Wireshark's rpcrdma heuristic claims it.
     */
    private static void writeSendOfIntegers(Path pcap) throws Exception {
        ByteBuffer payload = ByteBuffer.allocate(256);
        for (int i = 0; i < 64; i++) {
            payload.putInt(i);
        }
        RoceFrame frame = new RoceFrame(
                new EthernetHeader(MacAddress.parse("02:00:00:00:00:02"), MacAddress.parse("02:00:00:00:00:01"),
                        java.util.Optional.empty(), EthernetHeader.ETHERTYPE_IPV4),
                new Ipv4Header(0, 0, true, 64, (Inet4Address) InetAddress.getByName("192.0.2.1"),
                        (Inet4Address) InetAddress.getByName("192.0.2.2")), UdpHeader.toRocePort(0xC011),
                RocePacket.of(Bth.of(Opcode.RC_SEND_ONLY, 0x12, 4660), List.of(), payload.array()));
        try (PcapWriter writer = PcapWriter.create(pcap)) {
            writer.write(1_000_000_000L, new FrameEncoder().encode(frame));
        }
    }

    private static List<String> run(List<String> command) throws Exception {
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
        return new ArrayList<>(out.lines().toList());
    }
}
