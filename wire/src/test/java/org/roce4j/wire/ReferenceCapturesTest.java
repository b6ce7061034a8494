package org.roce4j.wire;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.roce4j.wire.pcap.PcapReader;
import org.roce4j.wire.pcap.PcapRecord;
import org.roce4j.wire.pcap.ReferencePcaps;

/**
 * Real traffic between two Linux Soft-RoCE devices (shared/reference-pcaps): every RoCEv2 frame
 * decodes, its ICRC verifies, and encoding the decoded records gives back the identical bytes.
 * The TCP handshakes in the same files are counted as non-RoCE, not as errors.
 */
class ReferenceCapturesTest {

    static List<Path> captures() throws IOException {
        List<Path> files = ReferencePcaps.files();
        assertThat(files).hasSizeGreaterThanOrEqualTo(7);
        return files;
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("captures")
    void everyRoceFrameDecodesVerifiesAndReencodesIdentically(Path capture) throws IOException {
        RoceDecoder decoder = new RoceDecoder();
        FrameEncoder encoder = new FrameEncoder();
        int udp4791 = 0;
        int frameNumber = 0;
        try (PcapReader reader = PcapReader.open(capture)) {
            for (PcapRecord record : reader) {
                frameNumber++;
                byte[] bytes = record.data();
                if (isUdpToRocePort(bytes)) {
                    udp4791++;
                }
                DecodeResult result = decoder.decode(bytes);
                if (result instanceof DecodeResult.Decoded decoded) {
                    byte[] again = encoder.encode(decoded.frame());
                    // Anything after the IP datagram is Ethernet padding, not part of the packet.
                    assertThat(again).as("%s frame %d re-encoded", capture.getFileName(), frameNumber)
                            .isEqualTo(Arrays.copyOf(bytes, again.length));
                    assertThat(bytes.length - again.length).isBetween(0, 46);
                } else {
                    DecodeResult.Dropped dropped = (DecodeResult.Dropped) result;
                    assertThat(dropped.reason().isRoce())
                            .as("%s frame %d dropped: %s", capture.getFileName(), frameNumber, dropped.detail())
                            .isFalse();
                }
            }
        }
        DecodeCounters counters = decoder.counters();
        assertThat(counters.accepted()).as("RoCEv2 frames in %s", capture.getFileName()).isPositive().isEqualTo(udp4791);
        assertThat(counters.roce()).isEqualTo(udp4791);
        assertThat(counters.total()).isEqualTo(frameNumber);
    }

    /** An independent, minimal classification: IPv4 or IPv6, UDP, destination port 4791. */
    private static boolean isUdpToRocePort(byte[] b) {
        int etherType = (b[12] & 0xFF) << 8 | b[13] & 0xFF;
        if (etherType == 0x0800) {
            int ihl = (b[14] & 0xF) * 4;
            return b[14 + 9] == 17 && ((b[14 + ihl + 2] & 0xFF) << 8 | b[14 + ihl + 3] & 0xFF) == 4791;
        }
        if (etherType == 0x86DD) {
            return b[14 + 6] == 17 && ((b[54 + 2] & 0xFF) << 8 | b[54 + 3] & 0xFF) == 4791;
        }
        return false;
    }
}
