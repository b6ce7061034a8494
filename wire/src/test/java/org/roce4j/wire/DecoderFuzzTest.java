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
 * The decoder never throws: random bytes, truncations and bit flips of valid frames, and mutants
 * whose ICRC was recomputed (so the deeper checks are reached) all yield a Decoded or a Dropped
 * with a reason. The case count comes from {@code roce4j.fuzz.cases} (CI: 100,000 per property).
 */
class DecoderFuzzTest {
    private static final int CASES = Integer.getInteger("roce4j.fuzz.cases", 10_000);
    private static RoceDecoder decoder;
    private static long cases;

    @BeforeAll
    static void start() {
        decoder = new RoceDecoder();
        cases = 0;
    }

    @Test
    void randomBytesNeverThrow() {
        qt().withExamples(CASES).forAll(WireGenerators.bytes(160)).checkAssert(DecoderFuzzTest::assertTotal);
    }

    @Test
    void truncatedAndBitFlippedFramesNeverThrow() {
        qt().withExamples(CASES).forAll(mutants(false)).checkAssert(DecoderFuzzTest::assertTotal);
    }

    @Test
    void mutantsWithARecomputedIcrcNeverThrow() {
        qt().withExamples(CASES).forAll(mutants(true)).checkAssert(DecoderFuzzTest::assertTotal);
    }

    @Test
    void udpPayloadParsingNeverThrows() {
        PacketInfo info = new PacketInfo();
        qt().withExamples(CASES).forAll(mutants(false)).checkAssert(frame -> {
            int start = Math.min(frame.length, 42);
            boolean ok = info.parseUdpPayload(frame, start, frame.length - start);
            assertThat(ok).isEqualTo(info.dropReason() == null);
            if (ok) {
                assertThat(info.icrcStatus()).isEqualTo(IcrcStatus.NOT_CHECKED);
                assertThat(RoceDecoder.toPacket(info).opcode()).isSameAs(info.opcode());
            }
        });
    }

    @AfterAll
    static void everyRoceDropReasonWasReached() {
        System.out.printf("DecoderFuzzTest: %d frames decoded (%d cases per property): %s%n", cases, CASES, decoder.counters());
        assertThat(decoder.counters().total()).isEqualTo(cases);
        for (DropReason reason : DropReason.values()) {
            if (reason.isRoce() && reason.appliesToRoceV2()) { // IbDecoderFuzzTest reaches the others
                assertThat(decoder.counters().dropped(reason)).as("fuzzing reached %s (%s)", reason, decoder.counters()).isPositive();
            }
        }
        assertThat(decoder.counters().accepted()).as("some mutants remain valid frames").isPositive();
    }

    private static void assertTotal(byte[] bytes) {
        cases++;
        DecodeResult result = decoder.decode(bytes);
        switch (result) {
            case DecodeResult.Decoded decoded -> {
                // A frame that decodes re-encodes to the bytes it came from, up to reserved bits and
                // Ethernet padding (so compare the decoded content instead of the raw bytes), and up to
                // a zero UDP checksum over IPv6, which the encoder fills in (RFC 8200 section 8.1).
                RoceFrame frame = decoded.frame();
                RoceFrame again = ((DecodeResult.Decoded) new RoceDecoder().decode(frame.encode())).frame();
                if (frame.ip().version() == 6 && frame.udp().checksum() == 0) {
                    assertThat(again.udp().checksum()).isNotZero();
                    frame = new RoceFrame(frame.ethernet(), frame.ip(), frame.udp().withChecksum(again.udp().checksum()),
                            frame.packet());
                }
                assertThat(again).isEqualTo(frame);
            }
            case DecodeResult.Dropped dropped -> {
                assertThat(dropped.reason()).isNotNull();
                assertThat(dropped.detail()).isNotBlank();
            }
        }
    }

    /** Valid frames (v4/v6, random opcodes) truncated, bit-flipped, byte-overwritten or length-patched. */
    private static Gen<byte[]> mutants(boolean fixIcrc) {
        Gen<Integer> picks = integers().between(0, Integer.MAX_VALUE);
        return WireGenerators.frames(96).zip(Generate.range(0, 6), picks, picks, (frame, kind, a, b) -> {
            byte[] bytes = frame.encode();
            int ip = frame.ethernet().length();
            byte[] mutant = switch (kind) {
                case 0 -> Arrays.copyOf(bytes, a % (bytes.length + 1));                 // truncate
                case 1 -> flip(bytes, a, b);                                             // bit flips
                case 2 -> overwrite(bytes, ip + 20 + (a % Math.max(1, bytes.length - ip - 20)), b); // transport bytes
                case 3 -> overwrite(bytes, ip + (a % 48), b);                            // IP/UDP/BTH bytes
                case 4 -> overwrite(bytes, 14 + (a % 60), b);                            // anywhere in headers
                case 5 -> shorten(bytes, ip, a);                                         // consistent short datagram
                default -> {
                    byte[] longer = Arrays.copyOf(bytes, bytes.length + 1 + a % 8);      // trailing bytes
                    longer[longer.length - 1] = (byte) b.intValue();
                    yield longer;
                }
            };
            if (fixIcrc && mutant.length >= ip + Ipv6Header.LENGTH + 24) {
                // Let the ICRC be right for the mutated bytes so parsing gets past it.
                new IcrcCalculator().fill(mutant, ip, mutant.length - IcrcCalculator.LENGTH);
            }
            return mutant;
        });
    }

    /**
     * Cuts the IP payload to a shorter length and patches the IP (and, when it is still whole,
     * the UDP) length to match: a consistent but short datagram, sometimes shorter than UDP's header.
     */
    private static byte[] shorten(byte[] bytes, int ip, int pick) {
        boolean ipv6 = (bytes[ip] & 0xF0) == 0x60;
        int udp = ip + (ipv6 ? Ipv6Header.LENGTH : Ipv4Header.LENGTH);
        int ipPayload = pick % 4 == 0 ? pick % UdpHeader.LENGTH : pick % (bytes.length - udp + 1);
        byte[] copy = Arrays.copyOf(bytes, udp + ipPayload);
        if (ipPayload >= UdpHeader.LENGTH) {
            Bytes.u16(copy, udp + 4, ipPayload);
        }
        if (ipv6) {
            Bytes.u16(copy, ip + 4, ipPayload);
        } else {
            Bytes.u16(copy, ip + 2, Ipv4Header.LENGTH + ipPayload);
            Bytes.u16(copy, ip + 10, 0);
            Bytes.u16(copy, ip + 10, Ipv4Header.checksum(copy, ip));
        }
        return copy;
    }

    private static byte[] flip(byte[] bytes, int a, int b) {
        byte[] copy = bytes.clone();
        int flips = 1 + b % 4;
        for (int i = 0; i < flips; i++) {
            int bit = Math.floorMod(a * 31 + i * 7919 + b, copy.length * 8);
            copy[bit / 8] ^= (byte) (1 << (bit % 8));
        }
        return copy;
    }

    /** A copy with the 16-bit {@code value} written at {@code offset}, as far as the bytes reach. */
    static byte[] overwrite(byte[] bytes, int offset, int value) {
        byte[] copy = bytes.clone();
        if (offset < copy.length) {
            copy[offset] = (byte) value;
            if (offset + 1 < copy.length) {
                copy[offset + 1] = (byte) (value >>> 8);
            }
        }
        return copy;
    }
}
