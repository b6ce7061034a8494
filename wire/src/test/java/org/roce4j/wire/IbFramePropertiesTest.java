package org.roce4j.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.integers;

import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.quicktheories.core.Gen;

/**
 * RoCEv1 (IBTA Annex A16) and native InfiniBand (IBTA Vol. 1 ch. 7-8) frames: encode then decode
 * gives the frame back, and a single flipped bit is caught — by the VCRC anywhere in an InfiniBand
 * packet (§7.8.2: it covers every byte, ICRC included), by the ICRC in a RoCEv1 frame except in the
 * fields §7.8.1 leaves out (GRH TClass, FlowLabel, HopLmt; BTH byte 4) and the Ethernet header,
 * which Ethernet's FCS covers.
 */
class IbFramePropertiesTest {

    static Gen<Grh> grhs() {
        return integers().between(0, 0xFF).zip(integers().between(0, 0xFFFFF), integers().between(0, 0xFF),
                (tclass, flow, hops) -> new int[] {tclass, flow, hops})
                .zip(WireGenerators.ipv6Addresses(), WireGenerators.ipv6Addresses(),
                        (f, source, destination) -> new Grh(f[0], f[1], f[2], source, destination));
    }

    static Gen<Lrh> lrhs() {
        return integers().between(0, 15).zip(integers().between(0, 15), integers().between(0, 0xFFFF),
                integers().between(0, 0xFFFF), Lrh::new);
    }

    static Gen<IbFrame> roceV1Frames() {
        return WireGenerators.macs().zip(WireGenerators.macs(), WireGenerators.vlans(),
                        (d, s, vlan) -> new EthernetHeader(d, s, vlan, EthernetHeader.ETHERTYPE_ROCE_V1))
                .zip(grhs(), WireGenerators.packets(300), IbFrame::roceV1);
    }

    static Gen<IbFrame> infinibandFrames() {
        Gen<Optional<Grh>> maybeGrh = WireGenerators.bools().zip(grhs(), (global, grh) -> global ? Optional.of(grh) : Optional.empty());
        return lrhs().zip(maybeGrh, WireGenerators.packets(300), IbFrame::infiniband);
    }

    @Test
    void roceV1FramesRoundTrip() {
        IbDecoder decoder = new IbDecoder();
        qt().withExamples(2_000).forAll(roceV1Frames()).checkAssert(frame -> {
            IbDecodeResult result = decoder.decodeRoceV1(frame.encode());
            assertThat(result).isInstanceOf(IbDecodeResult.Decoded.class);
            IbDecodeResult.Decoded decoded = (IbDecodeResult.Decoded) result;
            assertThat(decoded.frame()).isEqualTo(frame);
            assertThat(decoded.vcrc()).isEqualTo(VcrcStatus.ABSENT);
        });
        assertThat(decoder.counters().accepted()).isEqualTo(decoder.counters().total());
    }

    @Test
    void infinibandPacketsRoundTrip() {
        IbDecoder decoder = new IbDecoder();
        qt().withExamples(2_000).forAll(infinibandFrames()).checkAssert(frame -> {
            byte[] bytes = frame.encode();
            assertThat(bytes).hasSize(frame.length());
            IbDecodeResult result = decoder.decodeInfiniband(bytes);
            assertThat(result).isInstanceOf(IbDecodeResult.Decoded.class);
            IbDecodeResult.Decoded decoded = (IbDecodeResult.Decoded) result;
            assertThat(decoded.frame()).isEqualTo(frame);
            assertThat(decoded.vcrc()).isEqualTo(VcrcStatus.VALID);
        });
    }

    @Test
    void anySingleBitFlipInAnInfinibandPacketIsCaught() {
        IbDecoder decoder = new IbDecoder();
        qt().withExamples(20_000).forAll(infinibandFrames(), integers().between(0, Integer.MAX_VALUE)).checkAssert((frame, pick) -> {
            byte[] bytes = frame.encode();
            int bit = pick % (bytes.length * 8);
            bytes[bit / 8] ^= (byte) (0x80 >>> (bit % 8));
            assertThat(decoder.decodeInfiniband(bytes)).as("flip of bit %d", bit).isInstanceOf(IbDecodeResult.Dropped.class);
        });
        assertThat(decoder.counters().accepted()).isZero();
        assertThat(decoder.counters().dropped(DropReason.BAD_VCRC)).as("most flips fail the VCRC").isPositive();
    }

    @Test
    void anySingleBitFlipInTheIcrcCoverageOfARoceV1FrameIsCaught() {
        IbDecoder decoder = new IbDecoder();
        qt().withExamples(20_000).forAll(roceV1Frames(), integers().between(0, Integer.MAX_VALUE)).checkAssert((frame, pick) -> {
            byte[] bytes = frame.encode();
            int grh = frame.ethernet().orElseThrow().length();
            int bit = grh * 8 + pick % ((bytes.length - grh) * 8);
            if (isVariant(bit - grh * 8)) {
                bit = grh * 8 + 8 * 8; // the first SGID bit instead: covered
            }
            bytes[bit / 8] ^= (byte) (0x80 >>> (bit % 8));
            assertThat(decoder.decodeRoceV1(bytes)).as("flip of bit %d", bit).isInstanceOf(IbDecodeResult.Dropped.class);
        });
    }

    @Test
    void flipsInTheVariantFieldsOfARoceV1FrameLeaveTheIcrcValid() {
        IbDecoder decoder = new IbDecoder();
        qt().withExamples(5_000).forAll(roceV1Frames(), integers().between(0, Integer.MAX_VALUE)).checkAssert((frame, pick) -> {
            byte[] bytes = frame.encode();
            int grh = frame.ethernet().orElseThrow().length();
            int[] variant = java.util.stream.IntStream.range(0, (Grh.LENGTH + 12) * 8).filter(IbFramePropertiesTest::isVariant).toArray();
            int bit = grh * 8 + variant[pick % variant.length];
            bytes[bit / 8] ^= (byte) (0x80 >>> (bit % 8));
            assertThat(decoder.decodeRoceV1(bytes)).as("flip of bit %d", bit).isInstanceOf(IbDecodeResult.Decoded.class);
        });
    }

    /** IBTA 7.8.1: TClass, FlowLabel and HopLmt of the GRH and byte 4 of the BTH are variant; bit offsets from the GRH. */
    private static boolean isVariant(int bit) {
        return bit >= 4 && bit < 32 || bit >= 56 && bit < 64 || bit >= (Grh.LENGTH + 4) * 8 && bit < (Grh.LENGTH + 5) * 8;
    }
}
