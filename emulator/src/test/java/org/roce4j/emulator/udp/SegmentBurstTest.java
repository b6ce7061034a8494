package org.roce4j.emulator.udp;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetSocketAddress;
import java.util.SplittableRandom;

import io.netty.channel.embedded.EmbeddedChannel;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.roce4j.wire.IcrcCalculator;
import org.roce4j.wire.Ipv4Header;

/** The sending half of the UDP segmentation offload: which frames make one run, and their Identifications. */
class SegmentBurstTest {
    private static final InetSocketAddress PEER = new InetSocketAddress("127.0.0.2", 4791);
    private static final InetSocketAddress OTHER_PEER = new InetSocketAddress("127.0.0.3", 4791);

    /** A valid IPv4 RoCEv2 packet (no Ethernet header): Identification 0, DF, random payload, its ICRC. */
    private static byte[] frame(SplittableRandom random) {
        return ReceivedIcrcTest.frame(random, 0, true);
    }

    private static int identification(byte[] f) {
        return (f[4] & 0xFF) << 8 | f[5] & 0xFF;
    }

    @Test
    @DisplayName("Segment i gets Identification i and the ICRC IBTA computes for it, as if computed again")
    void renumberedFramesVerifyWithTheirIdentification() {
        SplittableRandom random = new SplittableRandom(0x6505);
        SegmentBurst burst = new SegmentBurst();
        IcrcCalculator icrc = new IcrcCalculator();
        for (int trial = 0; trial < 300; trial++) {
            byte[] f = frame(random);
            int id = random.nextInt(1, SegmentBurst.MAX_SEGMENTS);
            burst.renumber(f, 0, f.length - 4, id);
            assertThat(identification(f)).isEqualTo(id);
            assertThat(f[6] & 0xE0).as("DF").isEqualTo(0x40);
            assertThat(Ipv4Header.checksum(f, 0)).as("header checksum").isZero();
            assertThat(IcrcCalculator.read(f, f.length - 4)).isEqualTo(icrc.compute(f, 0, f.length - 4));
            assertThat(icrc.verify(f, 0, f.length - 4)).isTrue();
        }
    }

    @Test
    @DisplayName("A frame renumbered twice (a duplicate fault sends it again, in a later place of the run) verifies with the last")
    void aFrameRenumberedAgainVerifiesWithItsNewIdentification() {
        SplittableRandom random = new SplittableRandom(0xD0B1E);
        SegmentBurst burst = new SegmentBurst();
        IcrcCalculator icrc = new IcrcCalculator();
        for (int trial = 0; trial < 200; trial++) {
            byte[] f = frame(random);
            burst.renumber(f, 0, f.length - 4, random.nextInt(1, SegmentBurst.MAX_SEGMENTS));
            int again = random.nextInt(0, SegmentBurst.MAX_SEGMENTS);
            burst.renumber(f, 0, f.length - 4, again);
            assertThat(identification(f)).isEqualTo(again);
            assertThat(icrc.verify(f, 0, f.length - 4)).isTrue();
        }
    }

    @Test
    @DisplayName("A frame corrupted before it is renumbered still fails its ICRC: the ICRC changes, it is not computed again")
    void aCorruptedFrameStaysCorrupted() {
        SplittableRandom random = new SplittableRandom(0xBAD);
        SegmentBurst burst = new SegmentBurst();
        IcrcCalculator icrc = new IcrcCalculator();
        for (int trial = 0; trial < 200; trial++) {
            byte[] f = frame(random);
            if (f.length <= 44) {
                continue; // no payload byte to corrupt
            }
            f[random.nextInt(40, f.length - 4)] ^= (byte) (1 << random.nextInt(8)); // a payload byte, under the ICRC
            burst.renumber(f, 0, f.length - 4, random.nextInt(1, SegmentBurst.MAX_SEGMENTS));
            assertThat(icrc.verify(f, 0, f.length - 4)).isFalse();
        }
    }

    @Test
    @DisplayName("A run: one peer, one socket, equal sizes; a shorter frame only ends a run of two or more")
    void whatContinuesARun() {
        SegmentBurst burst = new SegmentBurst();
        EmbeddedChannel channel = new EmbeddedChannel();
        EmbeddedChannel otherChannel = new EmbeddedChannel();
        byte[] f = new byte[4200];
        assertThat(SegmentBurst.eligible(4, 1040)).isTrue();
        assertThat(SegmentBurst.eligible(4, SegmentBurst.MIN_PAYLOAD)).isTrue();
        assertThat(SegmentBurst.eligible(4, SegmentBurst.MIN_PAYLOAD - 1)).as("an ACK").isFalse();
        assertThat(SegmentBurst.eligible(6, 1040)).as("IPv6: no Identification, not done").isFalse();

        assertThat(burst.continues(channel, PEER, 1056)).as("an empty run takes anything").isTrue();
        burst.add(channel, PEER, f, 0, 1056); // FIRST, with its RETH
        assertThat(burst.continues(channel, PEER, 1040)).as("shorter after one: starts a new run").isFalse();
        assertThat(burst.continues(channel, PEER, 1056)).isTrue();
        burst.add(channel, PEER, f, 0, 1056);
        assertThat(burst.continues(channel, OTHER_PEER, 1056)).as("another peer").isFalse();
        assertThat(burst.continues(otherChannel, PEER, 1056)).as("another socket").isFalse();
        assertThat(burst.continues(channel, PEER, 1100)).as("longer").isFalse();
        assertThat(burst.continues(channel, PEER, 600)).as("shorter after two: ends the run").isTrue();
        burst.add(channel, PEER, f, 0, 600);
        assertThat(burst.nextIdentification()).isEqualTo(3);
        assertThat(burst.continues(channel, PEER, 600)).as("nothing after the short one").isFalse();
        assertThat(burst.continues(channel, PEER, 1056)).isFalse();
    }

    @Test
    @DisplayName("A run stops at the largest UDP payload and at Linux's segment limit")
    void aRunIsBounded() {
        SegmentBurst burst = new SegmentBurst();
        EmbeddedChannel channel = new EmbeddedChannel();
        byte[] f = new byte[5100];
        int n = 5039; // 13 × 5039 = 65,507: the run fills the datagram exactly
        int fits = SegmentBurst.MAX_TOTAL / n;
        assertThat(fits * n).isEqualTo(SegmentBurst.MAX_TOTAL);
        for (int i = 0; i < fits; i++) {
            assertThat(burst.continues(channel, PEER, n)).isTrue();
            burst.add(channel, PEER, f, 0, n);
        }
        assertThat(burst.continues(channel, PEER, n)).as("over 65,507 bytes").isFalse();

        SegmentBurst small = new SegmentBurst();
        for (int i = 0; i < SegmentBurst.MAX_SEGMENTS; i++) {
            assertThat(small.continues(channel, PEER, 520)).isTrue();
            small.add(channel, PEER, f, 0, 520);
        }
        assertThat(small.continues(channel, PEER, 520)).as("segment 65").isFalse();
    }
}
