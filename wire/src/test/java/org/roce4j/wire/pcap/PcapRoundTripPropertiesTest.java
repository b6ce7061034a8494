package org.roce4j.wire.pcap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.lists;
import static org.quicktheories.generators.SourceDSL.longs;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.HexFormat;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.quicktheories.core.Gen;
import org.quicktheories.generators.Generate;

/**
 * Round-trip properties. QuickTheories prints the seed of a failing run (replay it with
 * {@code -DQT_SEED=...}); the number of cases is {@code roce4j.fuzz.cases}.
 */
class PcapRoundTripPropertiesTest {

    private static final int CASES = Integer.getInteger("roce4j.fuzz.cases", 1_000);

    private static final long UINT32_MAX = 0xFFFF_FFFFL;

    private static Gen<ByteOrder> byteOrders() {
        return Generate.pick(List.of(ByteOrder.BIG_ENDIAN, ByteOrder.LITTLE_ENDIAN));
    }

    /**
     * Frames of 0 to 2000 bytes. The bytes come from a generated seed rather than one generated
     * byte at a time, which makes 100,000 cases several times cheaper; shrinking still shortens the
     * frame, and the seed replays it.
     */
    private static Gen<PcapRecord> frames() {
        Gen<byte[]> data = integers().between(0, 2000).zip(longs().all(), (length, seed) -> {
            byte[] bytes = new byte[length];
            new SplittableRandom(seed).nextBytes(bytes);
            return bytes;
        });
        return longs().between(0, PcapRecordHeader.MAX_TIMESTAMP_NANOS)
                .zip(data, (timestamp, bytes) -> new PcapRecord(timestamp, bytes.length, bytes));
    }

    private static String describe(List<PcapRecord> records) {
        return records.stream()
                .map(r -> r.timestampNanos() + "ns:" + HexFormat.of().formatHex(r.data()))
                .collect(Collectors.joining(", ", "[", "]"));
    }

    @Test
    void anyFramesWithAnyTimestampsReadBackExactlyAsWritten() {
        qt().withExamples(CASES)
                .forAll(lists().of(frames()).ofSizeBetween(0, 8).describedAs(
                        PcapRoundTripPropertiesTest::describe))
                .checkAssert(frames -> assertThat(writeThenRead(frames))
                        .containsExactlyElementsOf(frames));
    }

    private static List<PcapRecord> writeThenRead(List<PcapRecord> frames) {
        try {
            var out = new ByteArrayOutputStream();
            try (var writer = new PcapWriter(out)) {
                for (PcapRecord frame : frames) {
                    writer.write(frame.timestampNanos(), frame.data());
                }
            }
            return PcapReaderTest.readAll(out.toByteArray());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Test
    void anyRecordHeaderDecodesToWhatWasEncodedInEitherByteOrder() {
        Gen<Long> uint32 = longs().between(0, UINT32_MAX);
        Gen<PcapRecordHeader> headers = uint32.zip(uint32, uint32, uint32, PcapRecordHeader::new);
        qt().withExamples(CASES)
                .forAll(headers, byteOrders())
                .checkAssert((header, order) -> {
                    ByteBuffer buffer = ByteBuffer.allocate(20).order(order);
                    header.encode(buffer, 4);
                    assertThat(PcapRecordHeader.decode(buffer, 4)).isEqualTo(header);
                });
    }

    @Test
    void anySupportedGlobalHeaderDecodesToWhatWasEncoded() {
        Gen<TimestampResolution> resolutions =
                Generate.enumValues(TimestampResolution.class);
        Gen<PcapGlobalHeader> headers = byteOrders().zip(resolutions, integers().between(3, 4),
                longs().between(0, UINT32_MAX), integers().all(),
                (order, resolution, minor, snaplen, linkType) ->
                        new PcapGlobalHeader(order, resolution, 2, minor, snaplen, linkType));
        qt().withExamples(CASES)
                .forAll(headers)
                .checkAssert(header -> {
                    byte[] bytes = new byte[PcapGlobalHeader.LENGTH];
                    header.encode(ByteBuffer.wrap(bytes), 0);
                    try {
                        assertThat(PcapGlobalHeader.decode(bytes, bytes.length)).isEqualTo(header);
                    } catch (PcapFormatException e) {
                        throw new AssertionError(e);
                    }
                });
    }

    @Test
    void anyMicrosecondTimestampReadsAsTheSameInstantInNanoseconds() {
        qt().withExamples(CASES)
                .forAll(longs().between(0, UINT32_MAX), integers().between(0, 999_999),
                        byteOrders())
                .checkAssert((seconds, micros, order) -> {
                    byte[] file = PcapBytes.microsecondFile(order)
                            .record(seconds.intValue(), micros, new byte[0]).bytes();
                    try {
                        assertThat(PcapReaderTest.readAll(file).getFirst().timestampNanos())
                                .isEqualTo(seconds * 1_000_000_000L + micros * 1_000L);
                    } catch (IOException e) {
                        throw new UncheckedIOException(e);
                    }
                });
    }
}
