package org.roce4j.wire;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Malformed RoCEv1 frames and InfiniBand packets are dropped with a typed reason and counted, never thrown. */
class IbDecoderTest {
    private static final RocePacket SEND = RocePacket.of(Bth.of(Opcode.RC_SEND_ONLY, 0x12, 3), java.util.List.of(), new byte[] {1, 2, 3});
    private static final Grh GRH = new Grh(0, 0, 64, Ipv6Header.parseAddress("2001:db8::1"), Ipv6Header.parseAddress("2001:db8::2"));
    private static final IbFrame LOCAL = IbFrame.infiniband(new Lrh(0, 0, 2, 1), Optional.empty(), SEND);
    private static final IbFrame GLOBAL = IbFrame.infiniband(new Lrh(0, 0, 2, 1), Optional.of(GRH), SEND);
    private static final IbFrame ROCE_V1 = IbFrame.roceV1(new EthernetHeader(MacAddress.parse("02:00:00:00:00:02"),
            MacAddress.parse("02:00:00:00:00:01"), EthernetHeader.ETHERTYPE_ROCE_V1), GRH, SEND);

    private static DropReason infinibandDrop(IbDecoder decoder, byte[] packet) {
        IbDecodeResult result = decoder.decodeInfiniband(packet);
        assertThat(result).isInstanceOf(IbDecodeResult.Dropped.class);
        return ((IbDecodeResult.Dropped) result).reason();
    }

    private static DropReason roceV1Drop(IbDecoder decoder, byte[] frame) {
        IbDecodeResult result = decoder.decodeRoceV1(frame);
        assertThat(result).isInstanceOf(IbDecodeResult.Dropped.class);
        return ((IbDecodeResult.Dropped) result).reason();
    }

    @Test
    void lrhRulesIbta77() {
        IbDecoder decoder = new IbDecoder();
        assertThat(infinibandDrop(decoder, new byte[5])).isEqualTo(DropReason.TRUNCATED_LRH);
        byte[] version = LOCAL.encode();
        version[0] |= 1;
        assertThat(infinibandDrop(decoder, version)).isEqualTo(DropReason.BAD_LINK_VERSION);
        byte[] raw = LOCAL.encode();
        raw[1] &= (byte) 0xFC; // LNH 0: raw
        assertThat(infinibandDrop(decoder, raw)).isEqualTo(DropReason.NOT_IBA_TRANSPORT);
        byte[] longer = java.util.Arrays.copyOf(LOCAL.encode(), LOCAL.length() + 4);
        assertThat(infinibandDrop(decoder, longer)).isEqualTo(DropReason.BAD_PACKET_LENGTH);
        assertThat(decoder.counters().drops()).containsOnlyKeys(DropReason.TRUNCATED_LRH, DropReason.BAD_LINK_VERSION,
                DropReason.NOT_IBA_TRANSPORT, DropReason.BAD_PACKET_LENGTH);
        assertThat(decoder.counters().roce()).as("raw packets are not transport traffic").isEqualTo(3);
    }

    @Test
    void grhRulesIbta83() {
        IbDecoder decoder = new IbDecoder();
        byte[] version = GLOBAL.encode();
        version[8] = 0x40;
        assertThat(infinibandDrop(decoder, version)).isEqualTo(DropReason.BAD_GRH_VERSION);
        byte[] next = ROCE_V1.encode();
        next[14 + 6] = 17;
        assertThat(roceV1Drop(decoder, next)).isEqualTo(DropReason.NOT_BTH_NEXT_HEADER);
        byte[] payLen = GLOBAL.encode();
        payLen[8 + 5]++;
        assertThat(infinibandDrop(decoder, payLen)).isEqualTo(DropReason.BAD_GRH_LENGTH);
        assertThat(roceV1Drop(decoder, java.util.Arrays.copyOf(ROCE_V1.encode(), 14 + 30))).isEqualTo(DropReason.TRUNCATED_GRH);
        assertThat(roceV1Drop(decoder, new byte[60])).isEqualTo(DropReason.NOT_ROCE_V1);
    }

    @Test
    void aCorruptPayloadFailsBothCrcsAndIsNamedAVcrcFailureIbta782() {
        IbDecoder decoder = new IbDecoder();
        byte[] packet = LOCAL.encode();
        packet[8 + 12] ^= 1;
        IbDecodeResult.Dropped dropped = (IbDecodeResult.Dropped) decoder.decodeInfiniband(packet);
        assertThat(dropped.reason()).isEqualTo(DropReason.BAD_VCRC);
        assertThat(dropped.icrc()).isEqualTo(IcrcStatus.INVALID);
        assertThat(dropped.vcrc()).isEqualTo(VcrcStatus.INVALID);
        assertThat(dropped.parsed()).isPresent();
    }

    @Test
    void aBadIcrcUnderAGoodVcrcIsAnIcrcFailure() {
        IbDecoder decoder = new IbDecoder();
        byte[] packet = LOCAL.encode();
        int icrc = packet.length - 6;
        packet[icrc] ^= 1; // then make the VCRC good again, as a router that recomputes it would
        IbCrcCalculator.writeVcrc(packet, packet.length - 2, IbCrcCalculator.vcrc(packet, 0, packet.length - 2));
        IbDecodeResult.Dropped dropped = (IbDecodeResult.Dropped) decoder.decodeInfiniband(packet);
        assertThat(dropped.reason()).isEqualTo(DropReason.BAD_ICRC);
        assertThat(dropped.vcrc()).isEqualTo(VcrcStatus.VALID);
        assertThat(decoder.counters().dropped(DropReason.BAD_ICRC)).isEqualTo(1);
    }

    @Test
    void theTransportRulesAreRoceV2sOnes() {
        IbDecoder decoder = new IbDecoder();
        byte[] frame = ROCE_V1.encode();
        frame[14 + 40] = (byte) 0x1F; // a reserved RC opcode
        assertThat(roceV1Drop(decoder, frame)).isEqualTo(DropReason.UNKNOWN_OPCODE);
    }

    @Test
    void summariesNameTheEncapsulation() {
        assertThat(FrameText.summary(LOCAL)).isEqualTo("IB LID 0x0001 → LID 0x0002 RC Send Only QP=0x000012 PSN=0x000003 payload=3");
        assertThat(FrameText.summary(ROCE_V1)).isEqualTo("RoCEv1 2001:db8::1 → 2001:db8::2 RC Send Only QP=0x000012 PSN=0x000003 payload=3");
    }
}
