package org.roce4j.tools;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.roce4j.wire.DecodeResult;
import org.roce4j.wire.Opcode;
import org.roce4j.wire.RoceDecoder;

import static org.assertj.core.api.Assertions.assertThat;

class DemoCommandTest {
    @TempDir
    Path dir;

    @Test
    @DisplayName("roce4j demo: every step correct, exit 0, every completion printed")
    void demoRunsCorrectly() {
        Path pcap = dir.resolve("demo.pcap");
        TestCaptures.Run run = TestCaptures.run("demo", "--pcap", pcap.toString());
        assertThat(run.err()).isEmpty();
        assertThat(run.exitCode()).as(run.out()).isZero();
        assertThat(run.out()).contains("7 of 7 steps correct").doesNotContain("WRONG");
        assertThat(run.out()).contains("opcode=RECV_RDMA_WITH_IMM", "opcode=FETCH_ADD", "opcode=COMP_SWAP",
                "opcode=RDMA_READ", "imm_data=0x12345678");
        assertThat(pcap).exists();
    }

    @ParameterizedTest(name = "path MTU {0}")
    @ValueSource(ints = {256, 4096})
    @DisplayName("the demo is correct at the smallest and the largest path MTU")
    void demoAtOtherMtus(int mtu) {
        TestCaptures.Run run = TestCaptures.run("demo", "--mtu", String.valueOf(mtu),
                "--pcap", dir.resolve("demo-" + mtu + ".pcap").toString());
        assertThat(run.exitCode()).as(run.out()).isZero();
    }

    @Test
    @DisplayName("the demo capture: every frame RoCEv2 with a good ICRC, every operation on the wire, multi-packet included")
    void demoCaptureDecodes() throws Exception {
        Path pcap = dir.resolve("demo.pcap");
        assertThat(TestCaptures.run("demo", "--pcap", pcap.toString()).exitCode()).isZero();
        RoceDecoder decoder = new RoceDecoder();
        List<Opcode> opcodes = TestCaptures.read(pcap).stream()
                .map(record -> decoder.decode(record.data()))
                .map(result -> {
                    assertThat(result).isInstanceOf(DecodeResult.Decoded.class);
                    return ((DecodeResult.Decoded) result).frame().packet().opcode();
                })
                .toList();
        assertThat(opcodes).contains(Opcode.RC_SEND_ONLY, Opcode.RC_SEND_FIRST, Opcode.RC_SEND_MIDDLE,
                Opcode.RC_SEND_LAST_WITH_IMMEDIATE, Opcode.RC_RDMA_WRITE_FIRST, Opcode.RC_RDMA_WRITE_LAST,
                Opcode.RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE, Opcode.RC_RDMA_READ_REQUEST,
                Opcode.RC_RDMA_READ_RESPONSE_FIRST, Opcode.RC_RDMA_READ_RESPONSE_LAST, Opcode.RC_FETCH_ADD,
                Opcode.RC_COMPARE_SWAP, Opcode.RC_ATOMIC_ACKNOWLEDGE, Opcode.RC_ACKNOWLEDGE);
    }

    @Test
    @DisplayName("pcaps/demo.pcap is what the demo writes today, byte for byte (regenerate: ./roce4j generate-pcaps)")
    void committedDemoCaptureIsReproducible() throws Exception {
        Path pcap = dir.resolve("demo.pcap");
        assertThat(TestCaptures.run("demo", "--pcap", pcap.toString()).exitCode()).isZero();
        assertThat(Files.readAllBytes(pcap)).isEqualTo(Files.readAllBytes(TestCaptures.committed("demo.pcap")));
    }

    @Test
    @DisplayName("a path MTU that is not one of IBTA's five is a usage error (exit 2)")
    void badMtuIsUsageError() {
        TestCaptures.Run run = TestCaptures.run("demo", "--mtu", "1500", "--pcap", dir.resolve("x.pcap").toString());
        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err()).contains("1500");
    }
}
