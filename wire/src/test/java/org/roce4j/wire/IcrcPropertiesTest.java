package org.roce4j.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.integers;

import java.util.BitSet;
import org.junit.jupiter.api.Test;
import org.quicktheories.core.Gen;

/**
 * RoCEv2 Annex A17.4.2: the ICRC covers every byte from the IP header to the end of the payload
 * except the fields routers may change, which are replaced by ones before computing it.
 */
class IcrcPropertiesTest {

    /** Which bits of a frame the ICRC ignores: the masked fields, relative to the IP header. */
    private static BitSet maskedBits(RoceFrame frame) {
        BitSet masked = new BitSet();
        int ip = frame.ethernet().length();
        int udp;
        if (frame.ip().version() == 4) {
            masked.set((ip + 1) * 8, (ip + 2) * 8);    // TOS
            masked.set((ip + 8) * 8, (ip + 9) * 8);    // TTL
            masked.set((ip + 10) * 8, (ip + 12) * 8);  // header checksum
            udp = ip + 20;
        } else {
            masked.set(ip * 8 + 4, (ip + 4) * 8);      // traffic class and flow label
            masked.set((ip + 7) * 8, (ip + 8) * 8);    // hop limit
            udp = ip + 40;
        }
        masked.set((udp + 6) * 8, (udp + 8) * 8);      // UDP checksum
        masked.set((udp + 12) * 8, (udp + 13) * 8);    // BTH byte 4: FECN, BECN, reserved
        return masked;
    }

    private static Gen<RoceFrame> frames() {
        return WireGenerators.frames(200);
    }

    @Test
    void anySingleBitFlipInACoveredByteBreaksTheIcrc() {
        IcrcCalculator icrc = new IcrcCalculator();
        qt().withExamples(20_000).forAll(frames(), integers().between(0, Integer.MAX_VALUE)).checkAssert((frame, pick) -> {
            byte[] bytes = frame.encode();
            int ip = frame.ethernet().length();
            int icrcOffset = bytes.length - IcrcCalculator.LENGTH;
            BitSet masked = maskedBits(frame);
            int coveredBits = (icrcOffset - ip) * 8;
            int bit = ip * 8 + pick % coveredBits;
            if (masked.get(bit)) {
                bit = masked.nextClearBit(bit);
            }
            bytes[bit / 8] ^= (byte) (0x80 >>> (bit % 8));
            assertThat(icrc.verify(bytes, ip, icrcOffset)).as("flip of bit %d (byte %d) detected", bit, bit / 8).isFalse();
        });
    }

    @Test
    void flipsInMaskedFieldsLeaveTheIcrcValid() {
        IcrcCalculator icrc = new IcrcCalculator();
        qt().withExamples(20_000).forAll(frames(), integers().between(0, Integer.MAX_VALUE)).checkAssert((frame, pick) -> {
            byte[] bytes = frame.encode();
            int ip = frame.ethernet().length();
            BitSet masked = maskedBits(frame);
            int[] bits = masked.stream().toArray();
            int bit = bits[pick % bits.length];
            bytes[bit / 8] ^= (byte) (0x80 >>> (bit % 8));
            assertThat(icrc.verify(bytes, ip, bytes.length - IcrcCalculator.LENGTH)).as("flip of masked bit %d", bit).isTrue();
        });
    }

    @Test
    void flippingAnIcrcBitIsDetected() {
        byte[] bytes = SampleFrames.ipv4Write().encode();
        bytes[bytes.length - 1] ^= 1;
        assertThat(new RoceDecoder().decode(bytes))
                .isInstanceOfSatisfying(DecodeResult.Dropped.class, d -> {
                    assertThat(d.reason()).isEqualTo(DropReason.BAD_ICRC);
                    assertThat(d.parsed()).isPresent();
                });
    }

    @Test
    void identificationAndUdpSourcePortAreCovered() {
        byte[] bytes = SampleFrames.ipv4Write().encode();
        int ip = 14;
        byte[] otherId = bytes.clone();
        otherId[ip + 5] ^= 1;
        byte[] otherPort = bytes.clone();
        otherPort[ip + 21] ^= 1;
        IcrcCalculator icrc = new IcrcCalculator();
        assertThat(icrc.verify(otherId, ip, bytes.length - 4)).isFalse();
        assertThat(icrc.verify(otherPort, ip, bytes.length - 4)).isFalse();
    }
}
