package org.roce4j.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.quicktheories.QuickTheory.qt;

import java.util.HexFormat;
import org.junit.jupiter.api.Test;
import org.quicktheories.generators.SourceDSL;

/** The IPv4 header checksum (RFC 791 §3.1, computed as RFC 1071 describes). */
class Ipv4ChecksumTest {

    @Test
    void aKnownHeaderHasItsKnownChecksum() {
        // Wikipedia's "IPv4 header checksum" example: 192.168.0.1 → 192.168.0.199, UDP, checksum b861.
        byte[] header = HexFormat.of().parseHex("450000730000400040110000c0a80001c0a800c7");
        assertThat(Ipv4Header.checksum(header, 0)).isEqualTo(0xb861);
    }

    @Test
    void theChecksumIsTheOnesComplementOfTheOnesComplementSumOfTheSixteenBitWords() {
        qt().withExamples(2000).forAll(SourceDSL.integers().between(0, 11), SourceDSL.longs().all(),
                SourceDSL.longs().all(), SourceDSL.integers().all()).checkAssert((offset, x, y, z) -> {
            byte[] buffer = new byte[32];
            java.nio.ByteBuffer.wrap(buffer, offset, Ipv4Header.LENGTH).putLong(x).putLong(y).putInt(z);
            assertThat(Ipv4Header.checksum(buffer, offset)).isEqualTo(sixteenBitWordChecksum(buffer, offset));
        });
    }

    @Test
    void aHeaderWithItsChecksumInPlaceSumsToZero() {
        byte[] header = HexFormat.of().parseHex("4500007300004000401100000a0000010a000002");
        int checksum = Ipv4Header.checksum(header, 0);
        header[10] = (byte) (checksum >>> 8);
        header[11] = (byte) checksum;
        assertThat(Ipv4Header.checksum(header, 0)).isZero();
    }

    @Test
    void aWrittenHeaderCarriesTheChecksumOfItsOwnBytes() {
        // write() sums the fields' values instead of reading its bytes back: they must agree for every header.
        qt().withExamples(5000).forAll(SourceDSL.integers().all(), SourceDSL.integers().all(), SourceDSL.integers().all(),
                SourceDSL.integers().between(0, 0xFFFF - Ipv4Header.LENGTH)).checkAssert((fields, from, to, payload) -> {
            int tos = fields >>> 24;
            int ttl = fields >>> 16 & 0xFF;
            int id = fields & 0xFFFF;
            byte[] source = java.nio.ByteBuffer.allocate(4).putInt(from).array();
            byte[] destination = java.nio.ByteBuffer.allocate(4).putInt(to).array();
            byte[] buffer = new byte[Ipv4Header.LENGTH + 3];
            Ipv4Header.write(buffer, 3, tos, id, (id & 1) == 0, ttl, source, destination, payload);
            byte[] checksumZeroed = buffer.clone();
            checksumZeroed[3 + 10] = 0;
            checksumZeroed[3 + 11] = 0;
            assertThat(((buffer[3 + 10] & 0xFF) << 8) | buffer[3 + 11] & 0xFF)
                    .isEqualTo(sixteenBitWordChecksum(checksumZeroed, 3));
            assertThat(Ipv4Header.checksum(buffer, 3)).isZero();
        });
    }

    /** RFC 1071 §4.1's loop, 16 bits at a time. */
    private static int sixteenBitWordChecksum(byte[] b, int off) {
        int sum = 0;
        for (int i = 0; i < Ipv4Header.LENGTH; i += 2) {
            sum += (b[off + i] & 0xFF) << 8 | b[off + i + 1] & 0xFF;
        }
        while ((sum >>> 16) != 0) {
            sum = (sum & 0xFFFF) + (sum >>> 16);
        }
        return ~sum & 0xFFFF;
    }
}
