package org.roce4j.wire;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** The published Scapy RoCE ICRC test vectors (test/contrib/roce.uts; see the resource's header). */
class ScapyVectorsTest {

    record Vector(String name, int assertedIcrc, byte[] frame) {
        @Override
        public String toString() {
            return name;
        }
    }

    static List<Vector> vectors() throws IOException {
        try (InputStream in = ScapyVectorsTest.class.getResourceAsStream("/scapy-roce-vectors.txt")) {
            String text = new String(in.readAllBytes(), StandardCharsets.US_ASCII);
            return text.lines().filter(l -> !l.isBlank() && !l.startsWith("#"))
                    .map(l -> l.trim().split("\\s+"))
                    .map(f -> new Vector(f[0], Integer.parseUnsignedInt(f[1], 16), HexFormat.of().parseHex(f[2])))
                    .toList();
        }
    }

    static Stream<Vector> cases() throws IOException {
        List<Vector> all = vectors();
        assertThat(all).extracting(Vector::name).containsExactly("ipv4", "ipv6", "cnp");
        return all.stream();
    }

    @ParameterizedTest(name = "Scapy {0}: ICRC computed equals the published value")
    @MethodSource("cases")
    void icrcMatchesPublishedVector(Vector vector) {
        byte[] frame = vector.frame();
        PacketInfo info = new PacketInfo();
        boolean ok = info.parseFrame(frame, 0, frame.length);
        assertThat(info.dropReason()).isNull();
        assertThat(ok).isTrue();
        // Scapy reads the icrc field big-endian from the wire; the CRC value is stored LSB first.
        int computed = new IcrcCalculator().compute(frame, info.ipOffset(), info.icrcOffset());
        assertThat(Integer.reverseBytes(computed)).isEqualTo(vector.assertedIcrc());
    }

    @ParameterizedTest(name = "Scapy {0}: decodes and re-encodes to identical bytes")
    @MethodSource("cases")
    void decodeThenEncodeIsIdentity(Vector vector) {
        DecodeResult result = new RoceDecoder().decode(vector.frame());
        assertThat(result).isInstanceOf(DecodeResult.Decoded.class);
        RoceFrame frame = ((DecodeResult.Decoded) result).frame();
        assertThat(new FrameEncoder().encode(frame)).isEqualTo(vector.frame());
    }
}
