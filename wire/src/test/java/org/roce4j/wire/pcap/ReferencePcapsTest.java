package org.roce4j.wire.pcap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.DynamicTest.dynamicTest;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/** Reads the real Soft-RoCE captures in shared/reference-pcaps: classic, microseconds, Ethernet. */
class ReferencePcapsTest {

    private static List<PcapRecord> readAll(PcapReader reader) throws IOException {
        List<PcapRecord> records = new ArrayList<>();
        for (var record = reader.read(); record.isPresent(); record = reader.read()) {
            records.add(record.get());
        }
        return records;
    }

    @TestFactory
    Stream<DynamicTest> everyReferenceCaptureIsEthernetWithAtLeastOneWholeRecord()
            throws IOException {
        List<Path> files = ReferencePcaps.files();
        assertThat(files).as("*.pcap in %s", ReferencePcaps.directory()).isNotEmpty();

        return files.stream().map(file -> dynamicTest(file.getFileName().toString(), () -> {
            try (var reader = PcapReader.open(file)) {
                assertThat(reader.linkType()).isEqualTo(LinkType.ETHERNET);
                List<PcapRecord> records = readAll(reader);

                assertThat(records).isNotEmpty().allSatisfy(r -> {
                    assertThat(r.data()).as("captured bytes of %s", r)
                            .hasSize(r.originalLength());
                    assertThat(r.timestampNanos() % 1_000)
                            .as("a microsecond file gives whole microseconds: %s", r).isZero();
                });
            }
        }));
    }

    @Test
    void rcPingpongHolds31RecordsTheFirstA74ByteSynAt1795251009Point526153Seconds()
            throws IOException {
        // capinfos -c counts 31 packets. The first record header (offset 24) is
        // 415b016b 49070800 4a000000 4a000000: 0x6B015B41 s, 0x80749 = 526153 us, 74 bytes.
        Path file = ReferencePcaps.directory().resolve("rxe_rc_pingpong.pcap");

        try (var reader = PcapReader.open(file)) {
            assertThat(reader.snaplen()).isEqualTo(262_144L);
            List<PcapRecord> records = readAll(reader);

            assertThat(records).hasSize(31);
            assertThat(records.getFirst().timestampNanos()).isEqualTo(1_795_251_009_526_153_000L);
            assertThat(records.getFirst().originalLength()).isEqualTo(74);
            // Ethernet type 0x0800 (IPv4) after the two MAC addresses.
            assertThat(records.getFirst().data()).startsWith(0x52, 0x54, 0x00, 0x00, 0x77, 0x02);
            assertThat(Arrays.copyOfRange(records.getFirst().data(), 12, 14))
                    .containsExactly(0x08, 0x00);
        }
    }
}
