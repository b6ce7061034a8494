package org.roce4j.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.quicktheories.QuickTheory.qt;

import org.junit.jupiter.api.Test;

/**
 * {@link PacketInfo#locateFrameHeaders}: a sender finds its own frame's addresses and UDP payload
 * where the full parse finds them, and, checking nothing, finds them in a frame no parse accepts.
 */
class PacketInfoLocateTest {

    @Test
    void theLayersOfEveryFrameAreWhereTheFullParseFindsThem() {
        PacketInfo located = new PacketInfo();
        PacketInfo full = new PacketInfo();
        qt().withExamples(500).forAll(WireGenerators.frames(200)).checkAssert(frame -> {
            byte[] bytes = new FrameEncoder().encode(frame);
            assertThat(full.parseFrame(bytes, 0, bytes.length)).isTrue();
            assertThat(located.locateFrameHeaders(bytes, 0, bytes.length)).isTrue();
            assertThat(located.ipVersion()).isEqualTo(frame.ip().version());
            assertThat(located.ipOffset()).isEqualTo(full.ipOffset());
            assertThat(located.ipSourceOffset()).isEqualTo(full.ipSourceOffset());
            assertThat(located.ipDestinationOffset()).isEqualTo(full.ipDestinationOffset());
            assertThat(located.ipAddressLength()).isEqualTo(full.ipAddressLength());
            assertThat(located.udpOffset()).isEqualTo(full.udpOffset());
            assertThat(located.bthOffset()).isEqualTo(full.bthOffset());
            assertThat(located.vlanTci()).isEqualTo(full.vlanTci());
            assertThat(located.opcode()).as("transport not read").isNull();
        });
    }

    /** The UDP link sends whatever its RNIC's frame says: a sender does not police its own headers. */
    @Test
    void nothingIsCheckedSoAFrameNoParseAcceptsIsLocatedAllTheSame() {
        byte[] bytes = SampleFrames.ipv4Write().encode();
        PacketInfo info = new PacketInfo();
        info.parseFrame(bytes, 0, bytes.length);
        int ip = info.ipOffset();
        int bth = info.bthOffset();
        bytes[ip + 8] ^= 1; // TTL changed, header checksum not
        bytes[info.udpOffset() + 3] ^= 1; // not port 4791
        bytes[bth] = (byte) 0xFF; // no such opcode
        bytes[bytes.length - 1] ^= 1; // a wrong ICRC
        assertThat(info.parseFrame(bytes, 0, bytes.length)).isFalse();
        assertThat(info.locateFrameHeaders(bytes, 0, bytes.length)).isTrue();
        assertThat(info.ipVersion()).isEqualTo(4);
        assertThat(info.ipOffset()).isEqualTo(ip);
        assertThat(info.bthOffset()).isEqualTo(bth);
    }

    @Test
    void aVersionNibbleOtherThanSixIsReadAsIpv4LikeTheIcrc() {
        byte[] bytes = SampleFrames.ipv6Write().encode();
        PacketInfo info = new PacketInfo();
        assertThat(info.locateFrameHeaders(bytes, 0, bytes.length)).isTrue();
        assertThat(info.ipVersion()).isEqualTo(6);
        bytes[info.ipOffset()] = 0x05;
        assertThat(info.locateFrameHeaders(bytes, 0, bytes.length)).isTrue();
        assertThat(info.ipVersion()).isEqualTo(4);
        assertThat(info.bthOffset()).isEqualTo(info.ipOffset() + 20 + 8);
    }

    @Test
    void aFrameTooShortForItsHeadersIsRefusedWithTheLayerItCannotHold() {
        byte[] bytes = SampleFrames.ipv4Write().encode();
        PacketInfo info = new PacketInfo();
        assertThat(info.locateFrameHeaders(bytes, 0, 13)).isFalse();
        assertThat(info.dropReason()).isEqualTo(DropReason.TRUNCATED_ETHERNET);
        assertThat(info.locateFrameHeaders(bytes, 0, 14 + 19)).isFalse();
        assertThat(info.dropReason()).isEqualTo(DropReason.TRUNCATED_IP);
        assertThat(info.locateFrameHeaders(bytes, 0, 14 + 20 + 7)).isFalse();
        assertThat(info.dropReason()).isEqualTo(DropReason.TRUNCATED_UDP);
        assertThat(info.locateFrameHeaders(bytes, 0, 14 + 20 + 8)).isTrue();
    }
}
