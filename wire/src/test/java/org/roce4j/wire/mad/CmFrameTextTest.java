package org.roce4j.wire.mad;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.roce4j.wire.DecodeResult;
import org.roce4j.wire.FrameText;
import org.roce4j.wire.RoceDecoder;
import org.roce4j.wire.pcap.PcapReader;
import org.roce4j.wire.pcap.PcapRecord;

/** FrameText names the CM message of a UD SEND to QP 1 with its main fields, on the reference captures. */
class CmFrameTextTest {

    @ParameterizedTest(name = "{0} frame {1}: {2}")
    @CsvSource(delimiter = '|', value = {
        "rxe_rping_cm.pcap     | 1  | CM REQ comm 0xaba4bdd9 sid 0x0000000001061c06 qpn 0x000011 psn 0x6c7525 mtu 1024 pdata 56 B (rdma_cm 192.168.77.3:55763 → 192.168.77.2:7174)",
        "rxe_rping_cm.pcap     | 2  | CM REP comm 0xc2f5479a remote 0xaba4bdd9 qpn 0x000011 psn 0x1a2759",
        "rxe_rping_cm.pcap     | 3  | CM RTU comm 0xaba4bdd9 remote 0xc2f5479a",
        "rxe_rping_cm.pcap     | 64 | CM DREQ comm 0xaba4bdd9 remote 0xc2f5479a qpn 0x000011",
        "rxe_rping_cm.pcap     | 65 | CM DREP comm 0xc2f5479a remote 0xaba4bdd9",
        "rxe_rping_reject.pcap | 2  | CM REJ reason 8 (invalid service ID) comm 0x00000000 remote 0x9f51d3bd",
        "rxe_udaddy_sidr.pcap  | 1  | CM SIDR_REQ req 0x2d94bf27 sid 0x0000000001111c06 pdata 180 B (rdma_cm 192.168.77.3:34977 → 192.168.77.2:7174)",
        "rxe_udaddy_sidr.pcap  | 2  | CM SIDR_REP status 0 qpn 0x000011 qkey 0x01234567 req 0x2d94bf27",
    })
    void cmMadsGetALineNamingTheMessage(String capture, int frame, String expected) throws IOException {
        assertThat(FrameText.cmLine(CmCaptures.frame(capture, frame).frame())).contains(expected);
    }

    @ParameterizedTest(name = "{0}: frames that are not CM MADs get no CM line")
    @CsvSource({"rxe_rping_cm.pcap, 15", "rxe_ud_pingpong.pcap, 0", "rxe_write_bw.pcap, 0"})
    void otherFramesGetNoLine(String capture, int cmFrames) throws IOException {
        RoceDecoder decoder = new RoceDecoder();
        int lines = 0;
        int roce = 0;
        try (PcapReader reader = PcapReader.open(CmCaptures.path(capture))) {
            for (PcapRecord record : reader) {
                if (decoder.decode(record.data()) instanceof DecodeResult.Decoded decoded) {
                    roce++;
                    lines += FrameText.cmLine(decoded.frame()).isPresent() ? 1 : 0;
                }
            }
        }
        assertThat(roce).isGreaterThan(cmFrames);
        assertThat(lines).isEqualTo(cmFrames);
    }
}
