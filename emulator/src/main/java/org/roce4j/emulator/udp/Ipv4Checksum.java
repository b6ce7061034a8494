package org.roce4j.emulator.udp;

import org.roce4j.wire.Ipv4Header;

/** The IPv4 header and UDP checksums of the headers the link writes for its tap and receive path. */
final class Ipv4Checksum {
    private Ipv4Checksum() {
    }

    /** Recomputes the header checksum of the 20-byte IPv4 header at {@code ip}. */
    static void fill(byte[] b, int ip) {
        b[ip + 10] = 0;
        b[ip + 11] = 0;
        int sum = Ipv4Header.checksum(b, ip);
        b[ip + 10] = (byte) (sum >>> 8);
        b[ip + 11] = (byte) sum;
    }

    /**
     * The UDP checksum over IPv4 (RFC 768) of the datagram at {@code udp}, {@code udpLength} bytes,
     * with the checksum field taken as 0; 0 is sent as 0xFFFF.
     */
    static int udp(byte[] b, int ip, int udp, int udpLength) {
        long sum = 0;
        for (int i = 12; i < 20; i += 2) {
            sum += (b[ip + i] & 0xFF) << 8 | (b[ip + i + 1] & 0xFF);
        }
        sum += 17 + udpLength;
        for (int i = 0; i < udpLength; i += 2) {
            if (i == 6) {
                continue;
            }
            int hi = b[udp + i] & 0xFF;
            int lo = i + 1 < udpLength ? b[udp + i + 1] & 0xFF : 0;
            sum += hi << 8 | lo;
        }
        while ((sum >>> 16) != 0) {
            sum = (sum & 0xFFFF) + (sum >>> 16);
        }
        int result = (int) (~sum & 0xFFFF);
        return result == 0 ? 0xFFFF : result;
    }
}
