package org.roce4j.wire;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** One named case per decoder rule; the fuzz properties cover the rest of the input space. */
class RoceDecoderTest {
    private static final int IP = 14;
    private static final int UDP = IP + 20;
    private static final int BTH = UDP + 8;

    private final RoceDecoder decoder = new RoceDecoder();

    private static byte[] write() {
        return SampleFrames.ipv4Write().encode();
    }

    /** Recomputes the ICRC so that the rule under test, not the ICRC check, decides. */
    private static byte[] withIcrc(byte[] frame) {
        new IcrcCalculator().fill(frame, IP, frame.length - IcrcCalculator.LENGTH);
        return frame;
    }

    private DecodeResult.Dropped dropped(byte[] frame) {
        DecodeResult result = decoder.decode(frame);
        assertThat(result).isInstanceOf(DecodeResult.Dropped.class);
        return (DecodeResult.Dropped) result;
    }

    @Test
    void reservedOpcodeIsATypedDropNotAnException() {
        byte[] frame = write();
        frame[BTH] = 0x1E;
        DecodeResult.Dropped drop = dropped(withIcrc(frame));
        assertThat(drop.reason()).isEqualTo(DropReason.UNKNOWN_OPCODE);
        assertThat(drop.detail()).contains("opcode 0x1e");
        assertThat(decoder.counters().dropped(DropReason.UNKNOWN_OPCODE)).isEqualTo(1);
    }

    @Test
    void transportVersionOtherThanZeroIsDropped() {
        byte[] frame = write();
        frame[BTH + 1] |= 0x01;
        assertThat(dropped(withIcrc(frame)).reason()).isEqualTo(DropReason.BAD_TRANSPORT_VERSION);
    }

    @Test
    void acknowledgeWithPayloadIsDropped() {
        byte[] frame = write();
        frame[BTH] = (byte) Opcode.RC_ACKNOWLEDGE.code();
        frame[BTH + 1] &= (byte) 0xCF; // pad 0
        assertThat(dropped(withIcrc(frame)).reason()).isEqualTo(DropReason.UNEXPECTED_PAYLOAD);
    }

    @Test
    void padCountLargerThanThePayloadIsDropped() {
        RocePacket empty = RocePacket.of(Bth.of(Opcode.RC_SEND_ONLY, 1, 1), List.of(), new byte[0]);
        RoceFrame sample = SampleFrames.ipv4Write();
        byte[] frame = new RoceFrame(sample.ethernet(), sample.ip(), sample.udp(), empty).encode();
        frame[BTH + 1] |= 0x30;
        assertThat(dropped(withIcrc(frame)).reason()).isEqualTo(DropReason.BAD_PAD_COUNT);
    }

    @Test
    void frameShorterThanItsIpLengthIsTruncated() {
        byte[] frame = write();
        assertThat(dropped(Arrays.copyOf(frame, frame.length - 1)).reason()).isEqualTo(DropReason.TRUNCATED_IP);
    }

    @Test
    void udpToAnotherPortIsNotRoce() {
        byte[] frame = write();
        frame[UDP + 3] = 0x35;
        DecodeResult.Dropped drop = dropped(frame);
        assertThat(drop.reason()).isEqualTo(DropReason.NOT_ROCE_PORT);
        assertThat(drop.reason().isRoce()).isFalse();
        assertThat(decoder.counters().roce()).isZero();
    }

    @Test
    void corruptedPayloadFailsTheIcrcButIsStillShown() {
        byte[] frame = write();
        frame[frame.length - 6] ^= 0x10;
        DecodeResult.Dropped drop = dropped(frame);
        assertThat(drop.reason()).isEqualTo(DropReason.BAD_ICRC);
        assertThat(drop.parsed()).map(f -> f.packet().opcode()).contains(Opcode.RC_RDMA_WRITE_ONLY);
        assertThat(drop.detail()).contains("on the wire").contains("computed");
    }

    @Test
    void ethernetPaddingAfterTheDatagramIsIgnored() {
        byte[] frame = Arrays.copyOf(write(), write().length + 6);
        PacketInfo info = new PacketInfo();
        assertThat(info.parseFrame(frame, 0, frame.length)).isTrue();
        assertThat(info.trailerLength()).isEqualTo(6);
        assertThat(info.payloadLength()).isEqualTo(13);
    }

    @Test
    void vlanTaggedFramesDecodeWithTheirTag() {
        RoceFrame sample = SampleFrames.ipv4Write();
        VlanTag tag = new VlanTag(3, false, 100);
        RoceFrame tagged = new RoceFrame(new EthernetHeader(sample.ethernet().destination(), sample.ethernet().source(),
                Optional.of(tag), EthernetHeader.ETHERTYPE_IPV4), sample.ip(), sample.udp(), sample.packet());
        byte[] bytes = tagged.encode();
        assertThat(Bytes.u16(bytes, 12)).isEqualTo(0x8100);
        assertThat(Bytes.u16(bytes, 14)).isEqualTo(3 << 13 | 100);
        DecodeResult result = decoder.decode(bytes);
        assertThat(result).isInstanceOfSatisfying(DecodeResult.Decoded.class,
                d -> assertThat(d.frame()).isEqualTo(tagged));
    }

    @Test
    void flyweightReadsTheSameFieldsAsTheRecords() {
        byte[] frame = write();
        PacketInfo info = new PacketInfo();
        assertThat(info.parseFrame(frame, 0, frame.length)).isTrue();
        assertThat(info.icrcStatus()).isEqualTo(IcrcStatus.VALID);
        assertThat(info.opcode()).isEqualTo(Opcode.RC_RDMA_WRITE_ONLY);
        assertThat(info.destQp()).isEqualTo(0x11);
        assertThat(info.psn()).isEqualTo(0x123456);
        assertThat(info.ackReq()).isTrue();
        assertThat(info.padCount()).isEqualTo(3);
        assertThat(info.rethVirtualAddress()).isEqualTo(0x00007f0012340000L);
        assertThat(info.rethRkey()).isEqualTo(0x1234);
        assertThat(info.rethDmaLength()).isEqualTo(13);
        assertThat(info.payloadOffset()).isEqualTo(BTH + 28);
        assertThat(info.icrcOffset()).isEqualTo(frame.length - 4);
    }

    @Test
    void udpPayloadParseSkipsTheIcrcCheck() {
        byte[] frame = write();
        frame[frame.length - 1] ^= 1; // a bad ICRC cannot be seen without the IP header
        PacketInfo info = new PacketInfo();
        assertThat(info.parseUdpPayload(frame, BTH, frame.length - BTH)).isTrue();
        assertThat(info.icrcStatus()).isEqualTo(IcrcStatus.NOT_CHECKED);
        assertThat(RoceDecoder.toPacket(info)).isEqualTo(SampleFrames.ipv4Write().packet());
    }

    @Test
    void ipv6SampleDecodesWithItsAddresses() {
        RoceFrame v6 = SampleFrames.ipv6Write();
        DecodeResult result = decoder.decode(v6.encode());
        assertThat(result).isInstanceOfSatisfying(DecodeResult.Decoded.class, d -> {
            assertThat(d.frame().ip()).isEqualTo(v6.ip());
            assertThat(d.frame().packet()).isEqualTo(v6.packet());
        });
    }
}
