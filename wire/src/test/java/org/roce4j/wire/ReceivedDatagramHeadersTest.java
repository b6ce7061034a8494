package org.roce4j.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.integers;

import java.util.Arrays;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * What wire gives a receiver that gets only a UDP payload from a socket (the UDP link): the
 * headers alone around it ({@link PacketWriter#headers}), the UDP checksum of either IP version
 * ({@link UdpHeader#checksum}), and the later rewrites of IP fields it learns or chooses
 * ({@link Ipv4Header#writeIdentification}, {@link IpHeader#writeVariantFields}).
 */
class ReceivedDatagramHeadersTest {

    @Test
    void headersWrittenAroundAFramesUdpPayloadGiveTheFramesBytesWithUdpChecksumZero() {
        PacketWriter writer = new PacketWriter();
        qt().withExamples(300).forAll(WireGenerators.frames(300)).checkAssert(frame -> {
            byte[] expected = new FrameEncoder().encode(frame);
            int ip = frame.ethernet().length();
            int udp = ip + frame.ip().length();
            Bytes.u16(expected, udp + UdpHeader.CHECKSUM_OFFSET, 0); // headers() leaves it to the caller
            int payload = udp + UdpHeader.LENGTH;
            byte[] buffer = new byte[expected.length + 3];
            PacketWriterTest.start(writer, frame, buffer, 3);
            assertThat(writer.ipOffset()).isEqualTo(3 + ip);
            assertThat(writer.udpPayloadOffset()).isEqualTo(3 + payload);
            System.arraycopy(expected, payload, buffer, writer.udpPayloadOffset(), expected.length - payload);
            int length = writer.headers(expected.length - payload);
            assertThat(length).isEqualTo(expected.length);
            assertThat(Arrays.copyOfRange(buffer, 3, 3 + length)).as("%s", frame).isEqualTo(expected);
        });
    }

    @Test
    void theLongestHeadersFitInMaxHeadersLength() {
        byte[] buffer = new byte[PacketWriter.MAX_HEADERS_LENGTH + 16];
        PacketWriter writer = new PacketWriter().ethernet(buffer, 0, 1, 2, 0x0123)
                .ipv6(0, 0, 64, new byte[16], new byte[16]).udp(4791);
        assertThat(writer.udpPayloadOffset()).isEqualTo(PacketWriter.MAX_HEADERS_LENGTH);
    }

    /** RFC 768 / RFC 1071: a receiver sums pseudo-header and datagram, checksum included, to all ones. */
    @Test
    void aFilledUdpChecksumMakesTheOnesComplementSumAllOnesOverIpv4AndIpv6() {
        SplittableRandom random = new SplittableRandom(0x0DD5);
        for (int i = 0; i < 2000; i++) {
            boolean v6 = random.nextBoolean();
            int udpLength = UdpHeader.LENGTH + random.nextInt(0, 64); // odd lengths too
            int ipLength = v6 ? Ipv6Header.LENGTH : Ipv4Header.LENGTH;
            byte[] b = new byte[ipLength + udpLength];
            byte[] source = randomBytes(random, 16);
            byte[] destination = randomBytes(random, 16);
            if (v6) {
                Ipv6Header.write(b, 0, random.nextInt(256), random.nextInt(1 << 20), 64, source, destination, udpLength);
            } else {
                Ipv4Header.write(b, 0, 0, random.nextInt(1 << 16), true, 64, source, destination, udpLength);
            }
            for (int j = ipLength; j < b.length; j++) {
                b[j] = (byte) random.nextInt();
            }
            UdpHeader.write(b, ipLength, random.nextInt(1 << 16), UdpHeader.ROCE_PORT, udpLength - UdpHeader.LENGTH,
                    random.nextInt(1 << 16)); // whatever was in the field does not count
            UdpHeader.fillChecksum(b, 0);
            assertThat(onesComplementSum(b, v6, udpLength)).as("datagram %d (IPv%d, %d bytes)", i, v6 ? 6 : 4, udpLength)
                    .isEqualTo(0xFFFF);
            assertThat(Bytes.u16(b, ipLength + UdpHeader.CHECKSUM_OFFSET)).isNotZero();
        }
    }

    /** Written independently of UdpHeader: the pseudo-header, then every 16-bit word, an odd byte padded. */
    private static int onesComplementSum(byte[] b, boolean v6, int udpLength) {
        long sum = 0;
        int from = v6 ? 8 : 12;
        int to = v6 ? 40 : 20;
        for (int i = from; i < to; i += 2) {
            sum += (b[i] & 0xFF) << 8 | b[i + 1] & 0xFF;
        }
        sum += 17 + udpLength;
        int udp = v6 ? 40 : 20;
        for (int i = 0; i < udpLength; i += 2) {
            int low = i + 1 < udpLength ? b[udp + i + 1] & 0xFF : 0;
            sum += (b[udp + i] & 0xFF) << 8 | low;
        }
        while (sum >>> 16 != 0) {
            sum = (sum & 0xFFFF) + (sum >>> 16);
        }
        return (int) sum;
    }

    @Test
    void rewritingTheVariantFieldsKeepsTheIcrcValidAndDecodesToTheNewValues() {
        qt().withExamples(300).forAll(WireGenerators.frames(200), integers().between(0, 0xFF),
                integers().between(0, 0xFFFFF), integers().between(0, 0xFF)).checkAssert((frame, tc, flow, hop) -> {
            byte[] bytes = new FrameEncoder().encode(frame);
            IpHeader.writeVariantFields(bytes, frame.ethernet().length(), tc, flow, hop);
            DecodeResult result = new RoceDecoder().decode(bytes);
            assertThat(result).as("ICRC and IPv4 checksum still valid").isInstanceOf(DecodeResult.Decoded.class);
            IpHeader decoded = ((DecodeResult.Decoded) result).frame().ip();
            IpHeader expected = switch (frame.ip()) {
                case Ipv4Header v4 -> new Ipv4Header(tc, v4.identification(), v4.dontFragment(), hop, v4.source(),
                        v4.destination());
                case Ipv6Header v6 -> new Ipv6Header(tc, flow, hop, v6.source(), v6.destination());
            };
            assertThat(decoded).isEqualTo(expected);
            assertThat(((DecodeResult.Decoded) result).frame().packet()).isEqualTo(frame.packet());
        });
    }

    @Test
    void anIdentificationWrittenAfterwardsGivesTheHeaderWrittenWithIt() {
        SplittableRandom random = new SplittableRandom(0x1D);
        for (int i = 0; i < 1000; i++) {
            byte[] source = randomBytes(random, 4);
            byte[] destination = randomBytes(random, 4);
            int tos = random.nextInt(256);
            int ttl = random.nextInt(256);
            int payload = random.nextInt(8, 9000);
            int id = random.nextInt(1 << 16);
            boolean df = random.nextBoolean();
            byte[] direct = new byte[Ipv4Header.LENGTH];
            Ipv4Header.write(direct, 0, tos, id, df, ttl, source, destination, payload);
            byte[] later = new byte[Ipv4Header.LENGTH];
            Ipv4Header.write(later, 0, tos, 0, true, ttl, source, destination, payload);
            Ipv4Header.writeIdentification(later, 0, id, df);
            assertThat(later).as("ID %d DF %b", id, df).isEqualTo(direct);
            assertThat(Ipv4Header.sourceAt(later, 0)).isEqualTo(Bytes.i32(source, 0));
            assertThat(IpHeader.versionAt(later, 0)).isEqualTo(4);
        }
    }

    /** DESIGN.md §3.9: the UDP link runs these per datagram, on its receive thread and under the fabric lock. */
    @Test
    void theHeaderWorkOfAUdpLinkAllocatesNothingPerDatagram() {
        com.sun.management.ThreadMXBean threads =
                (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
        org.assertj.core.api.Assumptions.assumeThat(threads.isThreadAllocatedMemorySupported()).isTrue();
        threads.setThreadAllocatedMemoryEnabled(true);
        byte[] frame = SampleFrames.ipv4Write().encode();
        byte[] v6frame = SampleFrames.ipv6Write().encode();
        byte[] rx = new byte[PacketWriter.MAX_HEADERS_LENGTH + 9216];
        byte[] source = {10, 0, 0, 1};
        byte[] destination = {10, 0, 0, 2};
        PacketWriter writer = new PacketWriter();
        PacketInfo info = new PacketInfo();
        long threadId = Thread.currentThread().threadId();
        long allocated = 0;
        for (int round = 0; round < 2; round++) { // the first warms up
            long before = threads.getThreadAllocatedBytes(threadId);
            for (int i = 0; i < 10_000; i++) {
                writer.ethernet(rx, 0, 1, 0).ipv4(0, 0, true, 64, source, destination).udp(4791).headers(100);
                UdpHeader.fillChecksum(rx, writer.ipOffset());
                Ipv4Header.writeIdentification(rx, writer.ipOffset(), i & 0xFFFF, (i & 1) == 0);
                IpHeader.writeVariantFields(frame, 14, 0, 0, 64);
                IpHeader.writeVariantFields(v6frame, 14, 0, 0, 64);
                info.locateFrameHeaders(frame, 0, frame.length);
            }
            allocated = threads.getThreadAllocatedBytes(threadId) - before;
        }
        assertThat(allocated).as("bytes allocated for 10000 datagrams").isLessThan(1_024);
    }

    private static byte[] randomBytes(SplittableRandom random, int length) {
        byte[] bytes = new byte[length];
        random.nextBytes(bytes);
        return bytes;
    }
}
