package org.roce4j.tools;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.roce4j.wire.Aeth;
import org.roce4j.wire.AethSyndrome;
import org.roce4j.wire.DecodeResult;
import org.roce4j.wire.Ipv4Header;
import org.roce4j.wire.Opcode;
import org.roce4j.wire.Operation;
import org.roce4j.wire.RoceDecoder;
import org.roce4j.wire.RoceFrame;
import org.roce4j.wire.pcap.PcapRecord;

class AllOpcodesCaptureTest {

    @Test
    @DisplayName("generate-pcaps reproduces the committed pcaps/ files byte for byte")
    void generatedCapturesEqualCommittedFiles(@TempDir Path dir) throws IOException {
        TestCaptures.Run run = TestCaptures.run("generate-pcaps", dir.toString());

        assertThat(run.exitCode()).as(run.err()).isZero();
        for (String name : List.of(AllOpcodesCapture.IPV4_FILE, AllOpcodesCapture.IPV6_FILE)) {
            byte[] generated = Files.readAllBytes(dir.resolve(name));
            byte[] committed = Files.readAllBytes(TestCaptures.committed(name));
            assertThat(Arrays.mismatch(generated, committed))
                    .as("first differing byte of %s (regenerate with ./roce4j generate-pcaps if the change is intended)", name)
                    .isEqualTo(-1);
        }
        assertThat(run.out()).contains("wrote " + dir.resolve(AllOpcodesCapture.IPV4_FILE));
    }

    @ParameterizedTest(name = "{0}: every frame decodes, each opcode exactly once, in code order")
    @CsvSource({"all-opcodes.pcap, 4", "all-opcodes-ipv6.pcap, 6"})
    void everyOpcodeExactlyOnceAndEveryFrameDecodes(String name, int ipVersion) throws IOException {
        List<RoceFrame> frames = decodeAll(name);

        assertThat(frames).hasSize(Opcode.values().length);
        assertThat(frames).extracting(f -> f.packet().opcode()).containsExactly(Opcode.values());
        assertThat(frames).allSatisfy(f -> assertThat(f.ip().version()).isEqualTo(ipVersion));
        assertThat(frames).filteredOn(f -> f.ethernet().vlan().isPresent())
                .singleElement()
                .satisfies(f -> {
                    assertThat(f.packet().opcode()).isEqualTo(AllOpcodesCapture.VLAN_TAGGED);
                    assertThat(f.ethernet().vlan()).contains(AllOpcodesCapture.VLAN);
                });
    }

    @Test
    @DisplayName("IPv4 frames carry DF and Identification 0, as Linux sends with IP_DONTFRAGMENT")
    void ipv4FramesAreDontFragmentWithIdentificationZero() throws IOException {
        assertThat(decodeAll(AllOpcodesCapture.IPV4_FILE)).extracting(RoceFrame::ip)
                .allSatisfy(ip -> assertThat(ip).isInstanceOfSatisfying(Ipv4Header.class, v4 -> {
                    assertThat(v4.dontFragment()).isTrue();
                    assertThat(v4.identification()).isZero();
                }));
    }

    @Test
    @DisplayName("timestamps start at 2026-01-01T00:00:00Z and advance 1 µs per frame")
    void timestampsAreFixed() throws IOException {
        List<PcapRecord> records = TestCaptures.read(TestCaptures.committed(AllOpcodesCapture.IPV4_FILE));
        for (int i = 0; i < records.size(); i++) {
            assertThat(records.get(i).timestampNanos()).isEqualTo(1_767_225_600_000_000_000L + i * 1_000L);
        }
    }

    @Test
    @DisplayName("payloads: multi-byte where the opcode carries one, every pad count 0-3, ATOMIC WRITE exactly 8 bytes")
    void payloadsCoverEveryPadCount() throws IOException {
        List<RoceFrame> frames = decodeAll(AllOpcodesCapture.IPV4_FILE);

        assertThat(frames).filteredOn(f -> f.packet().opcode().carriesPayload())
                .allSatisfy(f -> assertThat(f.packet().payloadLength()).isGreaterThan(1));
        assertThat(frames).extracting(f -> f.packet().bth().padCount()).contains(0, 1, 2, 3);
        assertThat(frames).filteredOn(f -> f.packet().opcode().operation() == Operation.ATOMIC_WRITE)
                .hasSize(3)
                .allSatisfy(f -> assertThat(f.packet().payloadLength()).isEqualTo(8));
    }

    @Test
    @DisplayName("the AETHs cover every syndrome type of IBTA §9.3.6: ACK, RNR NAK and NAK")
    void aethSyndromesCoverEveryKind() throws IOException {
        Set<Class<?>> kinds = new HashSet<>();
        for (RoceFrame frame : decodeAll(AllOpcodesCapture.IPV4_FILE)) {
            frame.packet().header(Aeth.class).ifPresent(aeth -> kinds.add(aeth.syndrome().getClass()));
        }
        assertThat(kinds).containsExactlyInAnyOrder(AethSyndrome.Ack.class, AethSyndrome.RnrNak.class, AethSyndrome.Nak.class);
    }

    /** Decodes every frame of a committed capture, failing on any that does not decode. */
    private static List<RoceFrame> decodeAll(String name) throws IOException {
        RoceDecoder decoder = new RoceDecoder();
        List<RoceFrame> frames = new ArrayList<>();
        for (PcapRecord record : TestCaptures.read(TestCaptures.committed(name))) {
            DecodeResult result = decoder.decode(record.data());
            assertThat(result).as("frame %d of %s", frames.size() + 1, name).isInstanceOf(DecodeResult.Decoded.class);
            frames.add(((DecodeResult.Decoded) result).frame());
        }
        assertThat(decoder.counters().accepted()).isEqualTo(frames.size());
        return frames;
    }
}
