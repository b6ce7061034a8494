package org.roce4j.wire.pcap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.roce4j.wire.pcap.PcapBytes.frame;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class PcapReaderTest {

    static Stream<ByteOrder> byteOrders() {
        return Stream.of(ByteOrder.BIG_ENDIAN, ByteOrder.LITTLE_ENDIAN);
    }

    static List<PcapRecord> readAll(byte[] file) throws IOException {
        List<PcapRecord> records = new ArrayList<>();
        try (var reader = new PcapReader(new ByteArrayInputStream(file))) {
            reader.forEach(records::add);
        }
        return records;
    }

    @Test
    void readsBackWhatTheWriterWroteWithNanosecondTimestamps() throws IOException {
        List<PcapRecord> written = List.of(
                new PcapRecord(0L, 60, frame(60, 0)),
                new PcapRecord(1L, 1, frame(1, 9)),
                new PcapRecord(1_700_000_000_123_456_789L, 1514, frame(1514, 3)),
                new PcapRecord(1_700_000_000_999_999_999L, 0, new byte[0]),
                new PcapRecord(PcapRecordHeader.MAX_TIMESTAMP_NANOS, 70_000, frame(70_000, 5)));
        var out = new ByteArrayOutputStream();
        try (var writer = new PcapWriter(out)) {
            for (PcapRecord r : written) {
                writer.write(r.timestampNanos(), r.data());
            }
        }

        assertThat(readAll(out.toByteArray())).containsExactlyElementsOf(written);
    }

    @Test
    void readsBackManyFramesThatCrossTheWriterBufferBoundaries() throws IOException {
        List<PcapRecord> written = new ArrayList<>();
        var out = new ByteArrayOutputStream();
        try (var writer = new PcapWriter(out)) {
            for (int i = 0; i < 200; i++) {
                var r = new PcapRecord(1_000L * i, 1000 + 37 * i, frame(1000 + 37 * i, i));
                writer.write(r.timestampNanos(), r.data());
                written.add(r);
            }
        }

        assertThat(readAll(out.toByteArray())).containsExactlyElementsOf(written);
    }

    @ParameterizedTest
    @MethodSource("byteOrders")
    void microsecondTimestampsInEitherByteOrderAreReadAsNanosecondsTimes1000(ByteOrder order)
            throws IOException {
        byte[] file = PcapBytes.microsecondFile(order)
                .record(1_700_000_000, 123_456, frame(60, 0))
                .record(1_700_000_000, 999_999, frame(42, 1))
                .bytes();

        assertThat(readAll(file)).containsExactly(
                new PcapRecord(1_700_000_000_123_456_000L, 60, frame(60, 0)),
                new PcapRecord(1_700_000_000_999_999_000L, 42, frame(42, 1)));
    }

    @ParameterizedTest
    @MethodSource("byteOrders")
    void nanosecondTimestampsInEitherByteOrderAreReadAsTheyAre(ByteOrder order) throws IOException {
        byte[] file = PcapBytes.nanosecondFile(order)
                .record(1_700_000_000, 123_456_789, frame(60, 0))
                .bytes();

        assertThat(readAll(file))
                .containsExactly(new PcapRecord(1_700_000_000_123_456_789L, 60, frame(60, 0)));
    }

    @Test
    void secondsAboveTwoToThe31AreUnsigned() throws IOException {
        byte[] file = PcapBytes.microsecondFile(ByteOrder.LITTLE_ENDIAN)
                .record(0xFFFF_FFFF, 1, new byte[0]).bytes();

        assertThat(readAll(file).getFirst().timestampNanos())
                .isEqualTo(4_294_967_295_000_001_000L);
    }

    @Test
    void reportsTheLinkTypeAndSnaplenOfTheGlobalHeader() throws IOException {
        byte[] file = PcapBytes.header(ByteOrder.BIG_ENDIAN, PcapBytes.MICROSECOND_MAGIC, 2, 4,
                65_535, 101).bytes();

        try (var reader = new PcapReader(new ByteArrayInputStream(file))) {
            assertThat(reader.linkType()).isEqualTo(new LinkType(101));
            assertThat(reader.snaplen()).isEqualTo(65_535L);
        }
    }

    @Test
    void linkTypeIsTheLow16BitsWhateverTheFcsInformationAbove() throws IOException {
        // draft-ietf-opsawg-pcap §4: FCS length in bits 28-31, F flag in bit 27.
        byte[] file = PcapBytes.header(ByteOrder.LITTLE_ENDIAN, PcapBytes.NANOSECOND_MAGIC, 2, 4,
                262_144, 0x4800_0001).bytes();

        try (var reader = new PcapReader(new ByteArrayInputStream(file))) {
            assertThat(reader.linkType()).isEqualTo(LinkType.ETHERNET);
        }
    }

    @Test
    void snaplenIsUnsigned() throws IOException {
        byte[] file = PcapBytes.header(ByteOrder.LITTLE_ENDIAN, PcapBytes.NANOSECOND_MAGIC, 2, 4,
                0xFFFF_FFFF, 1).bytes();

        try (var reader = new PcapReader(new ByteArrayInputStream(file))) {
            assertThat(reader.snaplen()).isEqualTo(4_294_967_295L);
        }
    }

    @Test
    void version23IsReadLikeVersion24() throws IOException {
        byte[] file = PcapBytes.header(ByteOrder.LITTLE_ENDIAN, PcapBytes.MICROSECOND_MAGIC, 2, 3,
                65_535, 1).record(5, 6, frame(10, 0)).bytes();

        assertThat(readAll(file)).containsExactly(new PcapRecord(5_000_006_000L, 10, frame(10, 0)));
    }

    @Test
    void aRecordCapturedShorterThanOnTheWireIsTruncatedWithItsOriginalLength() throws IOException {
        byte[] file = PcapBytes.microsecondFile(ByteOrder.LITTLE_ENDIAN)
                .record(1, 0, 4, 1514, frame(4, 0)).bytes();

        PcapRecord record = readAll(file).getFirst();
        assertThat(record.data()).isEqualTo(frame(4, 0));
        assertThat(record.originalLength()).isEqualTo(1514);
        assertThat(record.truncated()).isTrue();
    }

    @Test
    void capturedLengthsAboveASmallSnaplenAreReadAsLibpcapReadsThem() throws IOException {
        byte[] file = PcapBytes.header(ByteOrder.LITTLE_ENDIAN, PcapBytes.MICROSECOND_MAGIC, 2, 4,
                96, 1).record(1, 0, frame(200, 0)).bytes();

        assertThat(readAll(file))
                .containsExactly(new PcapRecord(1_000_000_000L, 200, frame(200, 0)));
    }

    @Test
    void aFileWithOnlyTheGlobalHeaderHasNoRecords() throws IOException {
        byte[] file = PcapBytes.nanosecondFile(ByteOrder.LITTLE_ENDIAN).bytes();

        try (var reader = new PcapReader(new ByteArrayInputStream(file))) {
            assertThat(reader.read()).isEmpty();
            assertThat(reader.iterator().hasNext()).isFalse();
        }
    }

    @Test
    void readReturnsRecordsInFileOrderThenEmpty() throws IOException {
        byte[] file = PcapBytes.nanosecondFile(ByteOrder.LITTLE_ENDIAN)
                .record(2, 0, frame(3, 0)).record(1, 0, frame(4, 0)).bytes();

        try (var reader = new PcapReader(new ByteArrayInputStream(file))) {
            assertThat(reader.read()).contains(new PcapRecord(2_000_000_000L, 3, frame(3, 0)));
            assertThat(reader.read()).contains(new PcapRecord(1_000_000_000L, 4, frame(4, 0)));
            assertThat(reader.read()).isEmpty();
            assertThat(reader.read()).isEmpty();
        }
    }

    @Test
    void canBeIteratedOnlyOnce() throws IOException {
        byte[] file = PcapBytes.nanosecondFile(ByteOrder.LITTLE_ENDIAN).bytes();

        try (var reader = new PcapReader(new ByteArrayInputStream(file))) {
            reader.iterator();
            assertThatThrownBy(reader::iterator).isInstanceOf(IllegalStateException.class);
        }
    }

    @Test
    void iterationReportsAFormatErrorAsUncheckedIOExceptionCausedByIt() throws IOException {
        byte[] file = PcapBytes.nanosecondFile(ByteOrder.LITTLE_ENDIAN)
                .record(1, 0, frame(60, 0)).withoutLast(1);

        try (var reader = new PcapReader(new ByteArrayInputStream(file))) {
            var records = reader.iterator();
            assertThatThrownBy(records::hasNext)
                    .isInstanceOf(UncheckedIOException.class)
                    .cause().isInstanceOf(PcapFormatException.class);
        }
    }

    @Test
    void openReadsTheFileAtAPath(@TempDir Path dir) throws IOException {
        Path path = dir.resolve("in.pcap");
        Files.write(path, PcapBytes.microsecondFile(ByteOrder.BIG_ENDIAN)
                .record(3, 4, frame(5, 6)).bytes());

        try (var reader = PcapReader.open(path)) {
            assertThat(reader.read()).contains(new PcapRecord(3_000_004_000L, 5, frame(5, 6)));
            assertThat(reader.read()).isEmpty();
        }
    }
}
