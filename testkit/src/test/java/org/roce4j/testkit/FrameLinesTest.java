package org.roce4j.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.roce4j.wire.RoceDecoder;
import org.roce4j.wire.pcap.PcapReader;
import org.roce4j.wire.pcap.PcapRecord;

/** The failure report's frame lines: decode's summary, and under a CM MAD the message it carries. */
class FrameLinesTest {

    @Test
    @DisplayName("A CM MAD's line carries a second, indented line naming the message, as decode prints it")
    void cmMadsNameTheirMessage() throws Exception {
        Path capture = Path.of(System.getProperty("roce4j.repo.root", ".")).toAbsolutePath()
                .resolve("../shared/reference-pcaps/rxe_rping_reject.pcap").normalize();
        RoceDecoder decoder = new RoceDecoder();
        List<String> lines = new ArrayList<>();
        try (PcapReader reader = PcapReader.open(capture)) {
            long number = 0;
            for (PcapRecord record : reader) {
                lines.add(FrameLines.line(++number, 0, decoder.decode(record.data())));
            }
        }
        assertThat(lines.get(1)).startsWith("2 0.000000000 192.168.77.2 → 192.168.77.3 UD Send Only QP=0x000001")
                .endsWith(" ICRC ok\n    CM REJ reason 8 (invalid service ID) comm 0x00000000 remote 0x9f51d3bd");
        assertThat(lines.get(0)).contains(" ICRC ok\n    CM REQ comm 0x9f51d3bd sid 0x000000000106270f");
        assertThat(lines).hasSize(2);
    }
}
