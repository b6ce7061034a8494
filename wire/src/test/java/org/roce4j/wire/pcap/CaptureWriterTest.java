package org.roce4j.wire.pcap;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CaptureWriterTest {

    private static final byte[] FRAME = new byte[61];

    static {
        for (int i = 0; i < FRAME.length; i++) {
            FRAME[i] = (byte) i;
        }
    }

    @TempDir
    Path dir;

    @Test
    void aNameEndingInPcapngGetsPcapngAndEveryOtherNameClassicPcap() throws IOException {
        try (CaptureWriter ng = CaptureWriter.create(dir.resolve("a.PCAPNG"));
             CaptureWriter classic = CaptureWriter.create(dir.resolve("a.pcap"));
             CaptureWriter unnamed = CaptureWriter.create(dir.resolve("capture"))) {
            assertThat(ng).isInstanceOf(PcapngWriter.class);
            assertThat(classic).isInstanceOf(PcapWriter.class);
            assertThat(unnamed).isInstanceOf(PcapWriter.class);
        }
    }

    @Test
    void pcapngKeepsEachFramesCommentsInOrder() throws IOException {
        Path file = dir.resolve("c.pcapng");
        try (CaptureWriter writer = CaptureWriter.create(file)) {
            writer.write(1_000, FRAME, 0, FRAME.length, List.of("ICRC corrupted by rule 1", "held back 6 µs by rule 2"));
            writer.write(2_000, FRAME, 3, 20, List.of());
        }
        List<CapturedPacket> packets = read(file);
        assertThat(packets).extracting(CapturedPacket::comments)
                .containsExactly(List.of("ICRC corrupted by rule 1", "held back 6 µs by rule 2"), List.of());
        assertThat(packets.get(1).data()).hasSize(20).startsWith(3, 4, 5);
    }

    @Test
    void classicPcapWritesTheFrameAndLeavesTheCommentsOut() throws IOException {
        Path file = dir.resolve("c.pcap");
        try (CaptureWriter writer = CaptureWriter.create(file)) {
            writer.write(1_000, FRAME, 0, FRAME.length, List.of("dropped by rule 2"));
        }
        List<CapturedPacket> packets = read(file);
        assertThat(packets).singleElement().satisfies(p -> {
            assertThat(p.data()).isEqualTo(FRAME);
            assertThat(p.comments()).isEmpty();
        });
    }

    @Test
    void headerAndRecordLengthsAddUpToTheFilesSizeInBothFormats() throws IOException {
        for (String name : List.of("s.pcap", "s.pcapng")) {
            Path file = dir.resolve(name);
            long expected;
            try (CaptureWriter writer = CaptureWriter.create(file)) {
                expected = writer.headerLength();
                List<List<String>> commentSets = List.of(List.of(), List.of("x"), List.of("four", "a longer comment é"));
                for (int i = 0; i < commentSets.size(); i++) {
                    int length = FRAME.length - i; // 61, 60, 59: every padding
                    writer.write(i, FRAME, 0, length, commentSets.get(i));
                    expected += writer.recordLength(length, commentSets.get(i));
                }
                assertThat(writer.headerLength()).as(name).isPositive();
            }
            assertThat(Files.size(file)).as(name).isEqualTo(expected);
        }
    }

    private static List<CapturedPacket> read(Path file) throws IOException {
        List<CapturedPacket> packets = new ArrayList<>();
        try (CaptureReader reader = CaptureReader.open(file)) {
            reader.forEach(packets::add);
        }
        return packets;
    }
}
