package org.roce4j.wire;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import org.junit.jupiter.api.Test;

/**
 * A datagram from a UDP socket has no IP header; a link that writes the one it knows before the
 * payload gets the same view of the addresses from {@link PacketInfo} as a parsed frame gives.
 */
class PacketInfoUdpPayloadTest {

    @Test
    void theIpHeaderWrittenBeforeAUdpPayloadGivesVersionAndAddressOffsetsAsAFrameDoes() {
        for (RoceFrame frame : new RoceFrame[] {SampleFrames.ipv4Write(), ipv6(SampleFrames.ipv4Write())}) {
            byte[] bytes = frame.encode();
            PacketInfo fromFrame = new PacketInfo();
            assertThat(fromFrame.parseFrame(bytes, 0, bytes.length)).isTrue();
            PacketInfo fromDatagram = new PacketInfo();
            int bth = fromFrame.bthOffset();
            assertThat(fromDatagram.parseUdpPayload(bytes, fromFrame.ipOffset(), bth, bytes.length - bth)).isTrue();
            assertThat(fromDatagram.ipVersion()).isEqualTo(frame.ip().version());
            assertThat(fromDatagram.ipOffset()).isEqualTo(fromFrame.ipOffset());
            assertThat(fromDatagram.ipSourceOffset()).isEqualTo(fromFrame.ipSourceOffset());
            assertThat(fromDatagram.ipDestinationOffset()).isEqualTo(fromFrame.ipDestinationOffset());
            assertThat(fromDatagram.ipHeaderLength()).isEqualTo(fromFrame.udpOffset() - fromFrame.ipOffset())
                    .isEqualTo(frame.ip().length());
            assertThat(fromDatagram.icrcStatus()).isEqualTo(IcrcStatus.NOT_CHECKED);
            byte[] source = frame.ip() instanceof Ipv4Header v4 ? v4.source().getAddress()
                    : ((Ipv6Header) frame.ip()).source().getAddress();
            int at = fromDatagram.ipSourceOffset();
            assertThat(Arrays.copyOfRange(bytes, at, at + fromDatagram.ipAddressLength())).isEqualTo(source);
        }
    }

    @Test
    void withoutAnIpHeaderNoAddressIsKnown() {
        byte[] bytes = SampleFrames.ipv4Write().encode();
        PacketInfo frame = new PacketInfo();
        frame.parseFrame(bytes, 0, bytes.length);
        PacketInfo info = new PacketInfo();
        assertThat(info.parseUdpPayload(bytes, frame.bthOffset(), bytes.length - frame.bthOffset())).isTrue();
        assertThat(info.ipOffset()).isEqualTo(-1);
        assertThat(info.ipSourceOffset()).isEqualTo(-1);
        assertThat(info.ipAddressLength()).isZero();
        assertThat(info.ipHeaderLength()).isZero();
    }

    @Test
    void aHeaderThatIsNeitherIpv4NorIpv6IsDropped() {
        byte[] bytes = SampleFrames.ipv4Write().encode();
        PacketInfo frame = new PacketInfo();
        frame.parseFrame(bytes, 0, bytes.length);
        bytes[frame.ipOffset()] = 0x55;
        PacketInfo info = new PacketInfo();
        assertThat(info.parseUdpPayload(bytes, frame.ipOffset(), frame.bthOffset(), bytes.length - frame.bthOffset()))
                .isFalse();
        assertThat(info.dropReason()).isEqualTo(DropReason.BAD_IP_VERSION);
    }

    private static RoceFrame ipv6(RoceFrame frame) {
        Ipv6Header ip = new Ipv6Header(0, 0x12345, 64, Ipv6Header.parseAddress("fe80::1"), Ipv6Header.parseAddress("fe80::2"));
        return new RoceFrame(new EthernetHeader(frame.ethernet().destination(), frame.ethernet().source(),
                EthernetHeader.ETHERTYPE_IPV6), ip, frame.udp(), frame.packet());
    }
}
