package org.roce4j.wire.pcap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.roce4j.wire.pcap.PcapBytes.frame;
import static org.roce4j.wire.pcap.PcapFormatException.Problem.CAPTURED_LENGTH_TOO_LARGE;
import static org.roce4j.wire.pcap.PcapFormatException.Problem.ORIGINAL_LENGTH_TOO_LARGE;
import static org.roce4j.wire.pcap.PcapFormatException.Problem.PCAPNG;
import static org.roce4j.wire.pcap.PcapFormatException.Problem.TRUNCATED_GLOBAL_HEADER;
import static org.roce4j.wire.pcap.PcapFormatException.Problem.TRUNCATED_RECORD_DATA;
import static org.roce4j.wire.pcap.PcapFormatException.Problem.TRUNCATED_RECORD_HEADER;
import static org.roce4j.wire.pcap.PcapFormatException.Problem.UNKNOWN_MAGIC;
import static org.roce4j.wire.pcap.PcapFormatException.Problem.UNSUPPORTED_VERSION;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class PcapReaderRejectsBadInputTest {

    private static PcapFormatException openingFails(byte[] file) {
        PcapFormatException e = catchThrowableOfType(PcapFormatException.class,
                () -> new PcapReader(new ByteArrayInputStream(file)));
        assertThat(e).as("opening should fail with a PcapFormatException").isNotNull();
        return e;
    }

    /** Reads every record, expecting the first {@code wholeRecords} to be fine. */
    private static PcapFormatException readingFailsAfter(int wholeRecords, byte[] file)
            throws IOException {
        var reader = new PcapReader(new ByteArrayInputStream(file));
        for (int i = 0; i < wholeRecords; i++) {
            assertThat(reader.read()).as("record #%d", i + 1).isPresent();
        }
        PcapFormatException e = catchThrowableOfType(PcapFormatException.class, reader::read);
        assertThat(e).as("reading record #%d should fail", wholeRecords + 1).isNotNull();
        return e;
    }

    @Test
    void anEmptyFileIsATruncatedGlobalHeaderAtOffset0() {
        PcapFormatException e = openingFails(new byte[0]);

        assertThat(e.problem()).isEqualTo(TRUNCATED_GLOBAL_HEADER);
        assertThat(e.offset()).isZero();
        assertThat(e).hasMessage("at byte offset 0: empty file: no pcap global header");
    }

    @ParameterizedTest
    @ValueSource(ints = {2, 4, 10, 23})
    void aFileEndingInsideTheGlobalHeaderSaysHowFarItGot(int length) {
        byte[] header = PcapBytes.microsecondFile(ByteOrder.LITTLE_ENDIAN).bytes();

        PcapFormatException e = openingFails(Arrays.copyOf(header, length));

        assertThat(e.problem()).isEqualTo(TRUNCATED_GLOBAL_HEADER);
        assertThat(e.offset()).isZero();
        assertThat(e).hasMessage("at byte offset 0: global header truncated: the file ends after "
                + length + " of 24 bytes");
    }

    @Test
    void anUnknownMagicIsNotAPcapAndTheMessageShowsTheBytes() {
        byte[] gif = "GIF89a and more".getBytes(StandardCharsets.US_ASCII);

        PcapFormatException e = openingFails(gif);

        assertThat(e.problem()).isEqualTo(UNKNOWN_MAGIC);
        assertThat(e.offset()).isZero();
        assertThat(e).hasMessage(
                "at byte offset 0: not a pcap file: unknown magic number 47 49 46 38");
    }

    @Test
    void pcapngIsRefusedWithAdviceToConvertIt() {
        // pcapng Section Header Block: type 0x0A0D0D0A, length 28, byte-order magic 0x1A2B3C4D.
        byte[] pcapng = HexFormat.of().parseHex(
                "0a0d0d0a" + "1c000000" + "4d3c2b1a" + "01000000" + "ffffffffffffffff"
                        + "1c000000");

        PcapFormatException e = openingFails(pcapng);

        assertThat(e.problem()).isEqualTo(PCAPNG);
        assertThat(e.offset()).isZero();
        assertThat(e).hasMessageContaining("this is pcapng, not classic pcap: read it with CaptureReader or PcapngReader");
    }

    @ParameterizedTest
    @CsvSource({"1, 0", "2, 2", "2, 5", "3, 4"})
    void versionsOtherThan23And24AreUnsupported(int major, int minor) {
        byte[] file = PcapBytes.header(ByteOrder.LITTLE_ENDIAN, PcapBytes.MICROSECOND_MAGIC,
                major, minor, 65_535, 1).bytes();

        PcapFormatException e = openingFails(file);

        assertThat(e.problem()).isEqualTo(UNSUPPORTED_VERSION);
        assertThat(e).hasMessageContaining("version " + major + "." + minor);
    }

    @Test
    void aFileEndingInsideARecordHeaderNamesTheRecordAndItsOffset() throws IOException {
        byte[] file = PcapBytes.microsecondFile(ByteOrder.LITTLE_ENDIAN)
                .record(1, 0, frame(60, 0))
                .record(2, 0, frame(60, 0))
                .withoutLast(60 + 9); // 7 of the second record header's 16 bytes are left

        PcapFormatException e = readingFailsAfter(1, file);

        assertThat(e.problem()).isEqualTo(TRUNCATED_RECORD_HEADER);
        assertThat(e.offset()).isEqualTo(24 + 16 + 60);
        assertThat(e).hasMessage("at byte offset 100: record #2 header truncated: "
                + "the file ends after 7 of 16 bytes");
    }

    @Test
    void aFileEndingInsideTheDataOfItsLastRecordIsReportedNotTakenForTheEnd() throws IOException {
        byte[] file = PcapBytes.microsecondFile(ByteOrder.BIG_ENDIAN)
                .record(1, 0, frame(60, 0))
                .record(2, 0, frame(60, 0))
                .withoutLast(10);

        PcapFormatException e = readingFailsAfter(1, file);

        assertThat(e.problem()).isEqualTo(TRUNCATED_RECORD_DATA);
        assertThat(e.offset()).isEqualTo(100);
        assertThat(e).hasMessage("at byte offset 100: record #2 data truncated: the header "
                + "announces 60 captured bytes but the file ends after 50, at byte offset 166");
    }

    @Test
    void aFileEndingRightAfterARecordHeaderIsTruncatedData() throws IOException {
        byte[] file = PcapBytes.nanosecondFile(ByteOrder.LITTLE_ENDIAN)
                .record(1, 0, frame(60, 0)).withoutLast(60);

        PcapFormatException e = readingFailsAfter(0, file);

        assertThat(e.problem()).isEqualTo(TRUNCATED_RECORD_DATA);
        assertThat(e.offset()).isEqualTo(24);
    }

    @Test
    void aCapturedLengthAbove256MibIsRefusedEvenWithAHugeSnaplen() throws IOException {
        byte[] file = PcapBytes.header(ByteOrder.LITTLE_ENDIAN, PcapBytes.NANOSECOND_MAGIC, 2, 4,
                        0xFFFF_FFFF, 1)
                .record(1, 0, 256 * 1024 * 1024 + 1, 256 * 1024 * 1024 + 1, new byte[0]).bytes();

        PcapFormatException e = readingFailsAfter(0, file);

        assertThat(e.problem()).isEqualTo(CAPTURED_LENGTH_TOO_LARGE);
        assertThat(e.offset()).isEqualTo(24);
        assertThat(e).hasMessageContaining("record #1 claims 268435457 captured bytes");
    }

    @Test
    void aCapturedLengthFarAboveTheSnaplenIsRefused() throws IOException {
        byte[] file = PcapBytes.header(ByteOrder.LITTLE_ENDIAN, PcapBytes.MICROSECOND_MAGIC, 2, 4,
                        65_535, 1)
                .record(1, 0, frame(10, 0))
                .record(1, 0, 262_145, 262_145, frame(262_145, 0)).bytes();

        PcapFormatException e = readingFailsAfter(1, file);

        assertThat(e.problem()).isEqualTo(CAPTURED_LENGTH_TOO_LARGE);
        assertThat(e.offset()).isEqualTo(24 + 16 + 10);
        assertThat(e).hasMessageContaining("snaplen is 65535 and at most 262144 are accepted");
    }

    @Test
    void aCapturedLengthOfLibpcapsMaximumSnaplenIsAcceptedWhateverTheSnaplen() throws IOException {
        byte[] file = PcapBytes.header(ByteOrder.LITTLE_ENDIAN, PcapBytes.MICROSECOND_MAGIC, 2, 4,
                65_535, 1).record(1, 0, frame(262_144, 0)).bytes();

        try (var reader = new PcapReader(new ByteArrayInputStream(file))) {
            assertThat(reader.read()).get().extracting(r -> r.data().length).isEqualTo(262_144);
        }
    }

    @Test
    void anOriginalLengthOf2GibOrMoreIsRefused() throws IOException {
        byte[] file = PcapBytes.microsecondFile(ByteOrder.LITTLE_ENDIAN)
                .record(1, 0, 4, 0x8000_0000, frame(4, 0)).bytes();

        PcapFormatException e = readingFailsAfter(0, file);

        assertThat(e.problem()).isEqualTo(ORIGINAL_LENGTH_TOO_LARGE);
        assertThat(e.offset()).isEqualTo(24);
    }

    @Test
    void afterAFormatErrorEveryReadReportsItAgain() throws IOException {
        byte[] file = PcapBytes.microsecondFile(ByteOrder.LITTLE_ENDIAN)
                .record(1, 0, frame(60, 0)).withoutLast(1);
        var reader = new PcapReader(new ByteArrayInputStream(file));

        PcapFormatException first = catchThrowableOfType(PcapFormatException.class, reader::read);
        PcapFormatException second = catchThrowableOfType(PcapFormatException.class, reader::read);

        assertThat(first).isNotNull();
        assertThat(second).isSameAs(first);
    }
}
