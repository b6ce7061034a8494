package org.roce4j.wire.pcap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.roce4j.wire.pcap.PcapBytes.frame;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PcapWriterTest {

    private static final HexFormat HEX = HexFormat.of();

    /** 2023-11-14T22:13:20.123456789Z: 1700000000 = 0x6553F100 s, 123456789 = 0x075BCD15 ns. */
    private static final long KNOWN_TIMESTAMP = 1_700_000_000_123_456_789L;

    @Test
    void globalHeaderIsNanosecondMagicVersion24Snaplen262144EthernetLittleEndian()
            throws IOException {
        var out = new ByteArrayOutputStream();
        new PcapWriter(out).close();

        assertThat(HEX.formatHex(out.toByteArray())).isEqualTo(
                "4d3cb2a1" // magic 0xA1B23C4D (nanoseconds), little-endian
                        + "0200" + "0400" // version 2.4
                        + "00000000" + "00000000" // thiszone, sigfigs
                        + "00000400" // snaplen 262144 = 0x40000
                        + "01000000"); // LINKTYPE_ETHERNET
    }

    @Test
    void recordHeaderHoldsSecondsNanosecondsCapturedAndOriginalLengthThenTheFrame()
            throws IOException {
        byte[] frame = frame(60, 0);
        var out = new ByteArrayOutputStream();
        try (var writer = new PcapWriter(out)) {
            writer.write(KNOWN_TIMESTAMP, frame);
        }

        byte[] file = out.toByteArray();
        assertThat(file).hasSize(24 + 16 + 60);
        assertThat(HEX.formatHex(file, 24, 40)).isEqualTo(
                "00f15365" // seconds 0x6553F100
                        + "15cd5b07" // nanoseconds 0x075BCD15
                        + "3c000000" // captured length 60
                        + "3c000000"); // original length 60
        assertThat(Arrays.copyOfRange(file, 40, 100)).isEqualTo(frame);
    }

    @Test
    void writingTheSamePacketsTwiceGivesByteIdenticalFiles() throws IOException {
        assertThat(writeSomePackets()).isEqualTo(writeSomePackets());
    }

    private static byte[] writeSomePackets() throws IOException {
        var out = new ByteArrayOutputStream();
        try (var writer = new PcapWriter(out)) {
            for (int i = 0; i < 50; i++) {
                writer.write(KNOWN_TIMESTAMP + i * 1_000L, frame(64 + 31 * i, i));
            }
        }
        return out.toByteArray();
    }

    @Test
    void framesLongerThanSnaplenAreCutToSnaplenAndKeepTheirOriginalLength() throws IOException {
        byte[] frame = frame(300_000, 7);
        var out = new ByteArrayOutputStream();
        try (var writer = new PcapWriter(out)) {
            writer.write(KNOWN_TIMESTAMP, frame);
        }

        byte[] file = out.toByteArray();
        assertThat(file).hasSize(24 + 16 + PcapWriter.SNAPLEN);
        assertThat(HEX.formatHex(file, 32, 40)).isEqualTo(
                "00000400" // captured length 262144
                        + "e0930400"); // original length 300000 = 0x493E0
        assertThat(Arrays.copyOfRange(file, 40, file.length))
                .isEqualTo(Arrays.copyOf(frame, PcapWriter.SNAPLEN));
    }

    @Test
    void writesOnlyTheGivenSliceOfTheArray() throws IOException {
        byte[] array = frame(100, 0);
        var out = new ByteArrayOutputStream();
        try (var writer = new PcapWriter(out)) {
            writer.write(KNOWN_TIMESTAMP, array, 10, 20);
        }

        byte[] file = out.toByteArray();
        assertThat(HEX.formatHex(file, 32, 40)).isEqualTo("14000000" + "14000000");
        assertThat(Arrays.copyOfRange(file, 40, file.length))
                .isEqualTo(Arrays.copyOfRange(array, 10, 30));
    }

    @Test
    void refusesASliceOutsideTheArray() {
        var writer = new PcapWriter(new ByteArrayOutputStream());

        assertThatThrownBy(() -> writer.write(0, new byte[10], 5, 6))
                .isInstanceOf(IndexOutOfBoundsException.class);
    }

    @Test
    void keepsBytesInItsBufferUntilFlushed() throws IOException {
        var out = new ByteArrayOutputStream();
        var writer = new PcapWriter(out);
        writer.write(KNOWN_TIMESTAMP, frame(60, 0));

        assertThat(out.size()).isZero();
        writer.flush();
        assertThat(out.size()).isEqualTo(24 + 16 + 60);
    }

    @Test
    void theLatestTimestampPcapHoldsIsWrittenAsAllOnesSecondsAnd999999999Nanoseconds()
            throws IOException {
        var out = new ByteArrayOutputStream();
        try (var writer = new PcapWriter(out)) {
            writer.write(0xFFFF_FFFFL * 1_000_000_000L + 999_999_999L, new byte[0]);
        }

        assertThat(HEX.formatHex(out.toByteArray(), 24, 32)).isEqualTo("ffffffff" + "ffc99a3b");
    }

    @Test
    void refusesTimestampsBefore1970OrAfter2106AndWritesNothingForThem() throws IOException {
        var out = new ByteArrayOutputStream();
        var writer = new PcapWriter(out);

        assertThatThrownBy(() -> writer.write(-1, new byte[1]))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("-1");
        assertThatThrownBy(() -> writer.write(0x1_0000_0000L * 1_000_000_000L, new byte[1]))
                .isInstanceOf(IllegalArgumentException.class);
        writer.close();
        assertThat(out.size()).isEqualTo(24);
    }

    @Test
    void closeClosesTheStreamAndLaterWritesFail() throws IOException {
        var closed = new boolean[1];
        OutputStream out = new ByteArrayOutputStream() {
            @Override
            public void close() {
                closed[0] = true;
            }
        };
        var writer = new PcapWriter(out);
        writer.close();
        writer.close();

        assertThat(closed[0]).isTrue();
        assertThatThrownBy(() -> writer.write(0, new byte[1]))
                .isInstanceOf(IOException.class).hasMessageContaining("closed");
    }

    @Test
    void createWritesTheSameBytesToAFileAsToAStream(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("out.pcap");
        Files.write(file, new byte[1000]); // an older, longer file is replaced, not overlaid
        try (var writer = PcapWriter.create(file)) {
            writer.write(KNOWN_TIMESTAMP, frame(60, 0));
        }
        var out = new ByteArrayOutputStream();
        try (var writer = new PcapWriter(out)) {
            writer.write(KNOWN_TIMESTAMP, frame(60, 0));
        }

        assertThat(Files.readAllBytes(file)).isEqualTo(out.toByteArray());
    }
}
