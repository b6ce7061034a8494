package org.roce4j.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.integers;

import java.util.Arrays;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.quicktheories.core.Gen;
import org.quicktheories.generators.Generate;

/**
 * {@link IbDecoder} never throws: truncations, bit flips and overwritten header bytes of valid
 * RoCEv1 frames and InfiniBand packets — some with their CRCs recomputed so that the deeper checks
 * are reached — yield a Decoded that re-encodes to itself or a Dropped with a reason, and every
 * reason only IbDecoder gives is reached. Case count as {@link DecoderFuzzTest}'s.
 */
class IbDecoderFuzzTest {
    private static final int CASES = Integer.getInteger("roce4j.fuzz.cases", 10_000);
    private static IbDecoder decoder;

    @BeforeAll
    static void start() {
        decoder = new IbDecoder();
    }

    @Test
    void mutatedInfinibandPacketsNeverThrow() {
        qt().withExamples(CASES).forAll(mutants(IbFramePropertiesTest.infinibandFrames(), false))
                .checkAssert(bytes -> assertTotal(decoder.decodeInfiniband(bytes)));
    }

    @Test
    void mutatedInfinibandPacketsWithRecomputedCrcsNeverThrow() {
        qt().withExamples(CASES).forAll(mutants(IbFramePropertiesTest.infinibandFrames(), true))
                .checkAssert(bytes -> assertTotal(decoder.decodeInfiniband(bytes)));
    }

    @Test
    void mutatedRoceV1FramesNeverThrow() {
        qt().withExamples(CASES).forAll(mutants(IbFramePropertiesTest.roceV1Frames(), false))
                .checkAssert(bytes -> assertTotal(decoder.decodeRoceV1(bytes)));
    }

    @Test
    void randomBytesNeverThrow() {
        qt().withExamples(CASES).forAll(WireGenerators.bytes(120)).checkAssert(bytes -> {
            assertTotal(decoder.decodeInfiniband(bytes));
            assertTotal(decoder.decodeRoceV1(bytes));
        });
    }

    @AfterAll
    static void everyInfinibandDropReasonWasReached() {
        System.out.printf("IbDecoderFuzzTest: %s%n", decoder.counters());
        for (DropReason reason : DropReason.values()) {
            if (!reason.appliesToRoceV2()) {
                assertThat(decoder.counters().dropped(reason)).as("fuzzing reached %s (%s)", reason, decoder.counters()).isPositive();
            }
        }
        assertThat(decoder.counters().accepted()).as("some mutants remain valid").isPositive();
    }

    private static void assertTotal(IbDecodeResult result) {
        switch (result) {
            case IbDecodeResult.Decoded decoded -> {
                byte[] again = decoded.frame().encode();
                IbDecodeResult redecoded = decoded.frame().lrh().isPresent()
                        ? new IbDecoder().decodeInfiniband(again) : new IbDecoder().decodeRoceV1(again);
                assertThat(((IbDecodeResult.Decoded) redecoded).frame()).isEqualTo(decoded.frame());
            }
            case IbDecodeResult.Dropped dropped -> {
                assertThat(dropped.reason()).isNotNull();
                assertThat(dropped.detail()).isNotBlank();
            }
        }
    }

    /** Valid frames truncated, bit-flipped, with header bytes overwritten, or lengthened. */
    private static Gen<byte[]> mutants(Gen<IbFrame> frames, boolean fixCrcs) {
        Gen<Integer> picks = integers().between(0, Integer.MAX_VALUE);
        return frames.zip(Generate.range(0, 4), picks, picks, (frame, kind, a, b) -> {
            byte[] bytes = frame.encode();
            byte[] mutant = switch (kind) {
                case 0 -> Arrays.copyOf(bytes, a % (bytes.length + 1));
                case 1 -> flip(bytes, a);
                case 2 -> DecoderFuzzTest.overwrite(bytes, a % Math.min(bytes.length, 70), b);
                case 3 -> DecoderFuzzTest.overwrite(bytes, a % 2 == 0 ? 0 : 12 + a % 3 * 2, b); // LRH VL/LVer, or EtherType / GRH PayLen
                default -> Arrays.copyOf(bytes, bytes.length + 1 + a % 8);
            };
            if (fixCrcs && frame.lrh().isPresent()) {
                recomputeCrcs(mutant);
            }
            return mutant;
        });
    }

    /** The ICRC and VCRC right for the mutated bytes, where the bytes are long enough to hold them. */
    private static void recomputeCrcs(byte[] packet) {
        int icrc = packet.length - IbCrcCalculator.VCRC_LENGTH - IcrcCalculator.LENGTH;
        boolean global = packet.length > 1 && (packet[1] & 3) == 3;
        if (icrc - Lrh.LENGTH - (global ? Grh.LENGTH : 0) >= 12) {
            Bytes.i32le(packet, icrc, new IbCrcCalculator().infinibandIcrc(packet, 0, icrc));
        }
        if (packet.length >= IbCrcCalculator.VCRC_LENGTH) {
            int vcrc = packet.length - IbCrcCalculator.VCRC_LENGTH;
            IbCrcCalculator.writeVcrc(packet, vcrc, IbCrcCalculator.vcrc(packet, 0, vcrc));
        }
    }

    private static byte[] flip(byte[] bytes, int a) {
        byte[] copy = bytes.clone();
        int bit = a % (copy.length * 8);
        copy[bit / 8] ^= (byte) (1 << (bit % 8));
        return copy;
    }
}
