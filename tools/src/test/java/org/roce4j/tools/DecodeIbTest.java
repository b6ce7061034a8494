package org.roce4j.tools;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code roce4j decode} reads RoCEv1 frames and InfiniBand packets (ERF records, as ibdump writes them) and names them. */
class DecodeIbTest {

    @Test
    void roceV1FramesAreDecodedAndNamedRoceV1() {
        TestCaptures.Run run = TestCaptures.run("decode", TestCaptures.committed(AllOpcodesCapture.ROCE_V1_FILE).toString());
        assertThat(run.exitCode()).as(run.err()).isZero();
        assertThat(run.lines().getFirst()).isEqualTo("1 0.000000000 RoCEv1 2001:db8::1 → 2001:db8::2 RC Send First"
                + " QP=0x000012 PSN=0xfffff8 payload=256 ICRC ok");
        assertThat(run.out()).contains("RoCE frames:           " + AllOpcodesCapture.frames(6).size());
    }

    @Test
    void infinibandPacketsShowTheirLidsAndVcrcVerdict() {
        TestCaptures.Run run = TestCaptures.run("decode", TestCaptures.committed(AllOpcodesCapture.INFINIBAND_FILE).toString());
        assertThat(run.exitCode()).as(run.err()).isZero();
        assertThat(run.lines().getFirst()).isEqualTo("1 0.000000000 IB LID 0x0001 → LID 0x0002 RC Send First"
                + " QP=0x000012 PSN=0xfffff8 payload=256 ICRC ok VCRC ok");
    }

    @Test
    void aCorruptedInfinibandPacketFailsItsVcrcAndTheRun(@TempDir Path dir) throws Exception {
        byte[] file = Files.readAllBytes(TestCaptures.committed(AllOpcodesCapture.INFINIBAND_GRH_FILE));
        int firstPayloadByte = 24 + 16 + 16 + 8 + 40 + 12; // pcap header, record header, ERF header, LRH, GRH, BTH
        file[firstPayloadByte] ^= 0x01;
        Path corrupt = dir.resolve("corrupt.pcap");
        Files.write(corrupt, file);
        TestCaptures.Run run = TestCaptures.run("decode", corrupt.toString());
        assertThat(run.exitCode()).isEqualTo(1);
        assertThat(run.lines().getFirst()).endsWith("ICRC BAD VCRC BAD");
        assertThat(run.out()).contains("BAD_VCRC=1");
    }
}
