package org.roce4j.tools;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.roce4j.wire.pcap.PcapRecord;

/** roce4j replay without a network (-w only): what it sends, what it prints, its argument checks. */
class ReplayCommandTest {
    private static final Path DEMO = TestCaptures.committed("demo.pcap");

    @Test
    @DisplayName("replay -w with no rewrite: every frame as captured, each printed as decode prints it, then the count")
    void withoutRewriteTheFramesAreTheCaptured(@TempDir Path dir) throws Exception {
        Path out = dir.resolve("out.pcap");

        TestCaptures.Run run = TestCaptures.run("replay", DEMO.toString(), "-w", out.toString());

        assertThat(run.exitCode()).isZero();
        assertThat(TestCaptures.read(out)).map(PcapRecord::data)
                .containsExactlyElementsOf(TestCaptures.read(DEMO).stream().map(PcapRecord::data).toList());
        assertThat(run.lines()).first().isEqualTo("replaying " + DEMO + " into " + out + ", rewrite: none");
        assertThat(run.lines()).contains(
                "15 0.000000000 10.0.0.1 → 10.0.0.2 RC RDMA Read Request QP=0x000011 PSN=0x00100a"
                        + " RETH(va=0x0000000020008000 rkey=0x00000101 len=4096) ICRC ok")
                .last().isEqualTo("sent 23 of 23 frames (0 with a bad ICRC kept), 0 not sent");
    }

    @Test
    @DisplayName("replay --rewrite: the printed frames carry the new addresses, QPN and PSN with a good ICRC; decode agrees")
    void rewrittenFramesDecodeClean(@TempDir Path dir) {
        Path out = dir.resolve("out.pcapng");

        TestCaptures.Run run = TestCaptures.run("replay", DEMO.toString(), "-w", out.toString(), "--rewrite",
                "src-ip=192.168.77.1,dst-ip=192.168.77.2", "--rewrite", "qpn=0x11:0x12,psn=+0x123");

        assertThat(run.exitCode()).isZero();
        assertThat(run.lines()).contains("1 0.000000000 192.168.77.1 → 192.168.77.2 RC Send Only QP=0x000012 PSN=0x001123"
                + " payload=64 ICRC ok");
        TestCaptures.Run decoded = TestCaptures.run("decode", out.toString());
        assertThat(decoded.exitCode()).isZero();
        assertThat(decoded.lines()).contains("RoCE frames:           23", "ICRC failures:         0");
    }

    @Test
    @DisplayName("replay --keep-bad-icrc: the frame captured with a bad ICRC is sent, and said to be, with a bad ICRC")
    void keepsABadIcrcBad(@TempDir Path dir) throws Exception {
        PcapRecord read = TestCaptures.read(DEMO).get(14);
        byte[] spoiled = read.data().clone();
        spoiled[spoiled.length - 1] ^= 0x5a;
        Path capture = TestCaptures.write(dir.resolve("bad.pcap"), List.of(spoiled));
        Path out = dir.resolve("out.pcap");

        TestCaptures.Run kept = TestCaptures.run("replay", capture.toString(), "-w", out.toString(), "--keep-bad-icrc",
                "--rewrite", "qpn=0x11:0x12");
        TestCaptures.Run repaired = TestCaptures.run("replay", capture.toString(), "-w", dir.resolve("r.pcap").toString());

        assertThat(kept.lines()).contains("sent 1 of 1 frames (1 with a bad ICRC kept), 0 not sent")
                .anyMatch(line -> line.startsWith("1 ") && line.contains("QP=0x000012") && line.endsWith(" ICRC BAD"));
        assertThat(TestCaptures.run("decode", out.toString()).exitCode()).isEqualTo(1);
        assertThat(repaired.lines()).contains("sent 1 of 1 frames (0 with a bad ICRC kept), 0 not sent")
                .anyMatch(line -> line.startsWith("1 ") && line.endsWith(" ICRC ok"));
    }

    @Test
    @DisplayName("replay sends only RoCEv2 frames: an ARP frame is named and not sent")
    void nonRoceFramesAreNotSent(@TempDir Path dir) throws Exception {
        byte[] arp = new byte[60];
        arp[12] = 0x08;
        arp[13] = 0x06;
        Path capture = TestCaptures.write(dir.resolve("mixed.pcap"), List.of(arp, TestCaptures.read(DEMO).getFirst().data()));

        TestCaptures.Run run = TestCaptures.run("replay", capture.toString(), "-w", dir.resolve("out.pcap").toString());

        assertThat(run.exitCode()).isZero();
        assertThat(run.lines()).contains("frame 1 not sent: NOT_IP: EtherType is neither IPv4 nor IPv6 (EtherType 0x0806)",
                "sent 1 of 2 frames (0 with a bad ICRC kept), 1 not sent");
    }

    @ParameterizedTest(name = "roce4j {0}: exit 2, {1}")
    @CsvSource(delimiter = '|', value = {
        "replay pcaps/demo.pcap|nowhere to send: give -i IFACE, -w OUT or both",
        "replay pcaps/demo.pcap -w /dev/null --rewrite ttl=1|--rewrite: unknown rewrite 'ttl'",
        "replay pcaps/demo.pcap -w /dev/null --rewrite qpn=0x11|--rewrite: qpn=0x11: expected qpn=OLD:NEW",
        "replay pcaps/demo.pcap -w /dev/null --pps -5|--pps cannot be negative",
        "replay -i lo|Missing required parameter: 'FILE'"})
    void wrongArgumentsAreUsageErrors(String line, String message) {
        String[] args = line.replace("pcaps/demo.pcap", DEMO.toString()).split(" ");

        TestCaptures.Run run = TestCaptures.run(args);

        assertThat(run.exitCode()).isEqualTo(Roce4j.USAGE);
        assertThat(run.err()).contains(message);
    }

    @Test
    @DisplayName("replay of an IPv6 capture with an IPv4 --rewrite address: exit 2, naming the address")
    void addressFamilyMismatchIsAUsageError(@TempDir Path dir) {
        TestCaptures.Run run = TestCaptures.run("replay", TestCaptures.committed(AllOpcodesCapture.IPV6_FILE).toString(),
                "-w", dir.resolve("out.pcap").toString(), "--rewrite", "src-ip=10.0.0.9");

        assertThat(run.exitCode()).isEqualTo(Roce4j.USAGE);
        assertThat(run.err()).contains("--rewrite: 10.0.0.9 is not an IPv6 address, and the frame is IPv6");
    }
}
