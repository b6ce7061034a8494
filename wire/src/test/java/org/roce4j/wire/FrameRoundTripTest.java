package org.roce4j.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.quicktheories.QuickTheory.qt;

import org.junit.jupiter.api.Test;

class FrameRoundTripTest {

    @Test
    void ipv4FramesOfEveryOpcodeDecodeToWhatWasEncoded() {
        qt().withExamples(3_000).forAll(WireGenerators.frames(WireGenerators.ipv4Headers(), 300))
                .checkAssert(FrameRoundTripTest::assertRoundTrip);
    }

    @Test
    void ipv6FramesOfEveryOpcodeDecodeToWhatWasEncoded() {
        qt().withExamples(3_000).forAll(WireGenerators.frames(WireGenerators.ipv6Headers(), 300))
                .checkAssert(FrameRoundTripTest::assertRoundTrip);
    }

    @Test
    void fullSizePayloadsRoundTrip() {
        qt().withExamples(200).forAll(WireGenerators.frames(4096)).checkAssert(FrameRoundTripTest::assertRoundTrip);
    }

    private static void assertRoundTrip(RoceFrame frame) {
        byte[] bytes = new FrameEncoder().encode(frame);
        assertThat(bytes).hasSize(frame.length());
        DecodeResult result = new RoceDecoder().decode(bytes);
        assertThat(result).as("decode of %s", frame).isInstanceOf(DecodeResult.Decoded.class);
        RoceFrame decoded = ((DecodeResult.Decoded) result).frame();
        assertThat(decoded.ethernet()).isEqualTo(frame.ethernet());
        assertThat(decoded.ip()).isEqualTo(frame.ip());
        assertThat(decoded.packet()).isEqualTo(frame.packet());
        assertThat(decoded.udp().sourcePort()).isEqualTo(frame.udp().sourcePort());
        assertThat(decoded.udp().destinationPort()).isEqualTo(UdpHeader.ROCE_PORT);
        if (frame.ip().version() == 6) {
            assertThat(decoded.udp().checksum()).as("IPv6 UDP checksum filled in").isNotZero()
                    .isEqualTo(UdpHeader.checksum(bytes, frame.ethernet().length(), 8 + frame.packet().length() + 4));
        }
        assertThat(new FrameEncoder().encode(decoded)).isEqualTo(bytes);
    }

    @Test
    void ipv4HeaderChecksumAndLengthsAreDerived() {
        RoceFrame frame = SampleFrames.ipv4Write();
        byte[] bytes = frame.encode();
        int ip = frame.ethernet().length();
        assertThat(Ipv4Header.checksum(bytes, ip)).as("checksum over a valid header is 0").isZero();
        assertThat(Bytes.u16(bytes, ip + 2)).isEqualTo(bytes.length - ip);
        assertThat(Bytes.u16(bytes, ip + 24)).isEqualTo(bytes.length - ip - 20);
        assertThat(bytes[frame.ethernet().length() + 28 + 1] >>> 4 & 3).isEqualTo(frame.packet().bth().padCount());
    }

    @Test
    void payloadIsPaddedToFourBytesWithZeros() {
        RocePacket packet = RocePacket.of(Bth.of(Opcode.RC_SEND_ONLY, 0x11, 7), java.util.List.of(), new byte[] {1, 2, 3, 4, 5});
        assertThat(packet.bth().padCount()).isEqualTo(3);
        byte[] bytes = new byte[packet.length()];
        assertThat(packet.encode(bytes, 0)).isEqualTo(12 + 8);
        assertThat(java.util.Arrays.copyOfRange(bytes, 12, 20)).containsExactly(1, 2, 3, 4, 5, 0, 0, 0);
    }
}
