package org.roce4j.tools;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.InstanceOfAssertFactories.STRING;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.roce4j.wire.FrameEncoder;
import org.roce4j.wire.Opcode;
import org.roce4j.wire.RoceFrame;
import org.roce4j.wire.pcap.PcapRecord;

class DecodeCommandTest {
    private static final String ALL_OPCODES = TestCaptures.committed(AllOpcodesCapture.IPV4_FILE).toString();

    @Test
    @DisplayName("decode all-opcodes.pcap: one summary line per frame with each header's key fields, exit 0")
    void summaryLinesOfTheAllOpcodesCapture() {
        TestCaptures.Run run = TestCaptures.run("decode", ALL_OPCODES);

        assertThat(run.exitCode()).isZero();
        assertThat(run.err()).isEmpty();
        assertThat(run.lines()).hasSize(Opcode.values().length + 6).contains(
                "1 0.000000000 192.0.2.1 → 192.0.2.2 RC Send First QP=0x000012 PSN=0xfffff8 payload=256 ICRC ok",
                "7 0.000006000 192.0.2.1 → 192.0.2.2 RC RDMA Write First QP=0x000012 PSN=0xfffffe"
                        + " RETH(va=0x00007f5200060000 rkey=0x0001062c len=589) payload=256 ICRC ok",
                "9 0.000008000 192.0.2.1 → 192.0.2.2 RC RDMA Write Last QP=0x000012 PSN=0x000000 payload=77 ICRC ok",
                "18 0.000017000 192.0.2.2 → 192.0.2.1 RC Acknowledge QP=0x000011 PSN=0x000009"
                        + " AETH(NAK PSN Sequence Error MSN=1017) ICRC ok",
                "19 0.000018000 192.0.2.2 → 192.0.2.1 RC Atomic Acknowledge QP=0x000011 PSN=0x00000a"
                        + " AETH(ACK credits=12 MSN=1018) AtomicAckETH(orig=0x00000000cafef00d) ICRC ok",
                "20 0.000019000 192.0.2.1 → 192.0.2.2 RC Compare Swap QP=0x000012 PSN=0x00000b AtomicETH(va=0x00007f5200130000"
                        + " rkey=0x0001132c swap=0x00000000deadbeef compare=0x00000000cafef00d) ICRC ok",
                "21 0.000020000 192.0.2.1 → 192.0.2.2 RC Fetch Add QP=0x000012 PSN=0x00000c"
                        + " AtomicETH(va=0x00007f5200140000 rkey=0x0001142c add=0x0000000000000010) ICRC ok",
                "22 0.000021000 192.0.2.1 → 192.0.2.2 RC Send Last Invalidate QP=0x000012 PSN=0x00000d"
                        + " IETH(rkey=0x0001162c) payload=31 ICRC ok",
                "55 0.000054000 192.0.2.2 → 192.0.2.1 RD Acknowledge QP=0x000031 PSN=0x0007e1 RDETH(EEC=0x000033)"
                        + " AETH(NAK Invalid RD Request MSN=3017) ICRC ok",
                "62 0.000061000 192.0.2.1 → 192.0.2.2 UD Send Only QP=0x000042 PSN=0x000bb8"
                        + " DETH(qkey=0x11111111 srcQP=0x000041) VLAN=100 payload=42 ICRC ok",
                "63 0.000062000 192.0.2.1 → 192.0.2.2 UD Send Only Immediate QP=0x000042 PSN=0x000bb9"
                        + " DETH(qkey=0x11111111 srcQP=0x000041) ImmDt(imm=0xc0de0065) payload=16 ICRC ok",
                "64 0.000063000 192.0.2.2 → 192.0.2.1 CNP QP=0x000011 PSN=0x000000 BECN ICRC ok",
                "82 0.000081000 192.0.2.2 → 192.0.2.1 XRC Acknowledge QP=0x000051 PSN=0x001399"
                        + " AETH(RNR NAK timer=14 (1.28 ms) MSN=6017) ICRC ok");
        assertThat(run.lines().subList(Opcode.values().length, run.lines().size())).containsExactly(
                "frames:                89",
                "RoCE frames:           89",
                "ICRC failures:         0",
                "malformed RoCE frames: 0",
                "non-RoCE frames:       0",
                "drops by reason:       none");
    }

    @Test
    @DisplayName("decode writes IPv6 addresses in RFC 5952 form")
    void ipv6Addresses() {
        TestCaptures.Run run = TestCaptures.run("decode", TestCaptures.committed(AllOpcodesCapture.IPV6_FILE).toString());

        assertThat(run.exitCode()).isZero();
        assertThat(run.lines()).contains(
                "18 0.000017000 2001:db8::2 → 2001:db8::1 RC Acknowledge QP=0x000011 PSN=0x000009"
                        + " AETH(NAK PSN Sequence Error MSN=1017) ICRC ok");
    }

    @Test
    @DisplayName("decode --verbose adds every header field, a hex dump of the first 64 payload bytes and the ICRC")
    void verboseShowsEveryField() throws IOException {
        PcapRecord writeFirst = TestCaptures.read(Path.of(ALL_OPCODES)).get(6);
        byte[] data = writeFirst.data();
        int icrc = ByteBuffer.wrap(data, data.length - 4, 4).order(ByteOrder.LITTLE_ENDIAN).getInt();

        TestCaptures.Run run = TestCaptures.run("decode", "--verbose", ALL_OPCODES);

        assertThat(run.exitCode()).isZero();
        List<String> lines = run.lines();
        int at = lines.indexOf("7 0.000006000 192.0.2.1 → 192.0.2.2 RC RDMA Write First QP=0x000012 PSN=0xfffffe"
                + " RETH(va=0x00007f5200060000 rkey=0x0001062c len=589) payload=256 ICRC ok");
        assertThat(at).isNotNegative();
        assertThat(lines.subList(at + 1, at + 12)).containsExactly(
                "    Ethernet 02:00:00:00:00:01 → 02:00:00:00:00:02 type=0x0800",
                "    IPv4 192.0.2.1 → 192.0.2.2 DSCP=0 ECN=0 ID=0x0000 DF=1 TTL=64",
                "    UDP 49169 → 4791 checksum=0x0000",
                "    BTH opcode=0x06 SE=0 M=0 pad=0 TVer=0 P_Key=0xffff FECN=0 BECN=0 QP=0x000012 A=0 PSN=0xfffffe",
                "    RETH va=0x00007f5200060000 rkey=0x0001062c len=589",
                "    payload 256 bytes (first 64):",
                "      0000  52 43 20 52 44 4d 41 20  57 72 69 74 65 20 46 69  RC RDMA Write Fi",
                "      0010  72 73 74 2e 20 52 43 20  52 44 4d 41 20 57 72 69  rst. RC RDMA Wri",
                "      0020  74 65 20 46 69 72 73 74  2e 20 52 43 20 52 44 4d  te First. RC RDM",
                "      0030  41 20 57 72 69 74 65 20  46 69 72 73 74 2e 20 52  A Write First. R",
                "    ICRC 0x" + HexFormat.of().toHexDigits(icrc) + " ok");
        assertThat(lines).contains(
                "    Ethernet 02:00:00:00:00:01 → 02:00:00:00:00:02 VLAN=100 PCP=3 DEI=0 type=0x0800",
                "    AETH syndrome=0x60 NAK PSN Sequence Error MSN=1017",
                "    AtomicETH va=0x00007f5200140000 rkey=0x0001142c add=0x0000000000000010 compare=0x0000000000000000",
                "    CNP reserved=0x00000000000000000000000000000000");
    }

    @Test
    @DisplayName("a RoCE frame with one corrupted byte is listed as ICRC BAD and decode exits 1")
    void corruptedByteFailsTheIcrc(@TempDir Path dir) throws IOException {
        byte[] good = encode(Opcode.RC_SEND_ONLY);
        byte[] corrupt = encode(Opcode.RC_RDMA_WRITE_ONLY);
        corrupt[corrupt.length - 8] ^= 0x01; // a payload byte: covered by the ICRC, by no other check
        Path file = TestCaptures.write(dir.resolve("corrupt.pcap"), List.of(good, corrupt));

        TestCaptures.Run run = TestCaptures.run("decode", file.toString());

        assertThat(run.exitCode()).isEqualTo(1);
        assertThat(run.lines()).containsExactly(
                "1 0.000000000 192.0.2.1 → 192.0.2.2 RC Send Only QP=0x000012 PSN=0xfffffc payload=42 ICRC ok",
                "2 0.000001000 192.0.2.1 → 192.0.2.2 RC RDMA Write Only QP=0x000012 PSN=0x000002"
                        + " RETH(va=0x00007f52000a0000 rkey=0x00010a2c len=5) payload=5 ICRC BAD",
                "frames:                2",
                "RoCE frames:           2",
                "ICRC failures:         1",
                "malformed RoCE frames: 0",
                "non-RoCE frames:       0",
                "drops by reason:       BAD_ICRC=1");
        assertThat(TestCaptures.run("decode", "-v", file.toString()).out())
                .containsPattern("    ICRC BAD: ICRC does not match \\(ICRC 0x[0-9a-f]{8} on the wire, 0x[0-9a-f]{8} computed\\)");
    }

    @Test
    @DisplayName("truncated RoCE frames are listed with their drop reason and decode exits 1")
    void truncatedFramesAreMalformed(@TempDir Path dir) throws IOException {
        byte[] cut = Arrays.copyOf(encode(Opcode.RC_SEND_FIRST), 100); // the capture lost the rest
        byte[] shortHeaders = encode(Opcode.RC_RDMA_WRITE_ONLY);
        shortHeaders[14 + 20 + 8] = (byte) Opcode.RC_COMPARE_SWAP.code(); // RETH + 5 bytes + pad: 24 where AtomicETH needs 28
        Path file = TestCaptures.write(dir.resolve("truncated.pcap"), List.of(cut, shortHeaders));

        TestCaptures.Run run = TestCaptures.run("decode", file.toString());

        assertThat(run.exitCode()).isEqualTo(1);
        assertThat(run.lines()).containsExactly(
                "1 0.000000000 malformed RoCE (TRUNCATED_IP: frame shorter than its IP header or IP length (value 300))",
                "2 0.000001000 malformed RoCE (TRUNCATED_HEADERS: packet shorter than the headers its opcode requires"
                        + " (value 40))",
                "frames:                2",
                "RoCE frames:           2",
                "ICRC failures:         0",
                "malformed RoCE frames: 2",
                "non-RoCE frames:       0",
                "drops by reason:       TRUNCATED_IP=1, TRUNCATED_HEADERS=1");
    }

    @Test
    @DisplayName("ARP, TCP and other UDP traffic is counted as non-RoCE and does not fail decode (exit 0)")
    void nonRoceTrafficIsCountedNotFailed(@TempDir Path dir) throws IOException {
        Path file = TestCaptures.write(dir.resolve("mixed.pcap"), List.of(
                NonRoceFrames.arpRequest(), NonRoceFrames.tcpSyn(), NonRoceFrames.dnsQuery(), encode(Opcode.RC_ACKNOWLEDGE)));

        TestCaptures.Run run = TestCaptures.run("decode", file.toString());

        assertThat(run.exitCode()).isZero();
        assertThat(run.lines()).containsExactly(
                "1 0.000000000 non-RoCE (ARP: EtherType is neither IPv4 nor IPv6 (EtherType 0x0806))",
                "2 0.000001000 non-RoCE (TCP: IP protocol is not UDP (protocol 6))",
                "3 0.000002000 non-RoCE (UDP: UDP destination port is not 4791 (port 53))",
                "4 0.000003000 192.0.2.2 → 192.0.2.1 RC Acknowledge QP=0x000011 PSN=0x000009"
                        + " AETH(NAK PSN Sequence Error MSN=1017) ICRC ok",
                "frames:                4",
                "RoCE frames:           1",
                "ICRC failures:         0",
                "malformed RoCE frames: 0",
                "non-RoCE frames:       3",
                "drops by reason:       NOT_IP=1, NOT_UDP=1, NOT_ROCE_PORT=1");
    }

    @Test
    @DisplayName("a file that does not exist: one line on stderr, nothing on stdout, exit 2")
    void missingFile(@TempDir Path dir) {
        Path missing = dir.resolve("missing.pcap");

        TestCaptures.Run run = TestCaptures.run("decode", missing.toString());

        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.out()).isEmpty();
        assertThat(run.err()).isEqualTo("roce4j decode: " + missing + ": no such file" + System.lineSeparator());
    }

    @Test
    @DisplayName("a file that is not a pcap capture: one line on stderr, no stack trace, exit 2")
    void notAPcapFile(@TempDir Path dir) throws IOException {
        Path text = Files.writeString(dir.resolve("notes.pcap"), "these are not packets\n");

        TestCaptures.Run run = TestCaptures.run("decode", text.toString());

        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.out()).isEmpty();
        assertThat(run.err().lines().toList()).singleElement(STRING)
                .startsWith("roce4j decode: " + text + ": ");
    }

    @Test
    @DisplayName("a capture cut inside a record: the frames before it are listed and counted, then one error line, exit 2")
    void captureCutInsideARecord(@TempDir Path dir) throws IOException {
        Path whole = TestCaptures.write(dir.resolve("whole.pcap"), List.of(encode(Opcode.RC_SEND_ONLY), encode(Opcode.RC_ACKNOWLEDGE)));
        byte[] bytes = Files.readAllBytes(whole);
        Path cut = Files.write(dir.resolve("cut.pcap"), Arrays.copyOf(bytes, bytes.length - 10));

        TestCaptures.Run run = TestCaptures.run("decode", cut.toString());

        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.lines()).hasSize(1 + 6).startsWith(
                "1 0.000000000 192.0.2.1 → 192.0.2.2 RC Send Only QP=0x000012 PSN=0xfffffc payload=42 ICRC ok",
                "frames:                1");
        assertThat(run.err().lines().toList()).singleElement(STRING)
                .startsWith("roce4j decode: " + cut + ": at byte offset ").contains("truncated");
    }

    @Test
    @DisplayName("usage errors: one line naming the problem and where help is, exit 2")
    void usageErrors() {
        TestCaptures.Run noCommand = TestCaptures.run();
        TestCaptures.Run noFile = TestCaptures.run("decode");
        TestCaptures.Run badOption = TestCaptures.run("decode", "--frobnicate", ALL_OPCODES);

        assertThat(List.of(noCommand, noFile, badOption)).allSatisfy(run -> {
            assertThat(run.exitCode()).isEqualTo(2);
            assertThat(run.out()).isEmpty();
            assertThat(run.err().lines().toList()).hasSize(1);
        });
        assertThat(noCommand.err()).startsWith("roce4j: missing command");
        assertThat(noFile.err()).isEqualTo("roce4j decode: Missing required parameter: 'FILE'"
                + " (see 'roce4j decode --help')" + System.lineSeparator());
        assertThat(badOption.err()).startsWith("roce4j decode: Unknown option: '--frobnicate'");
    }

    @Test
    @DisplayName("decode --help lists the exit codes and exits 0")
    void helpListsExitCodes() {
        TestCaptures.Run run = TestCaptures.run("decode", "--help");

        assertThat(run.exitCode()).isZero();
        assertThat(run.out()).contains("Exit codes:", "1   some RoCE frame is malformed or has a bad ICRC");
    }

    private static byte[] encode(Opcode opcode) {
        RoceFrame frame = AllOpcodesCapture.frames(4).get(opcode.ordinal());
        return new FrameEncoder().encode(frame);
    }
}
