package org.roce4j.wire;

/**
 * UDP header (RFC 768). The length is derived on encode. The checksum is kept as given: RoCEv2
 * masks it out of the ICRC (A17.4.2), Linux rxe sends 0 over IPv4, and over IPv6 a real checksum
 * is required (RFC 8200 §8.1), which {@link FrameEncoder} and {@link PacketWriter} compute with
 * {@link #checksum(byte[], int, int)} — the one UDP checksum in the project, for either IP version.
 */
public record UdpHeader(int sourcePort, int destinationPort, int checksum) {
    /** The IANA port for RoCEv2 (A17.4.1). */
    public static final int ROCE_PORT = 4791;
    static final int LENGTH = 8;
    /** Where the checksum lies in the header. */
    static final int CHECKSUM_OFFSET = 6;

    public UdpHeader {
        Bytes.requireRange("source port", sourcePort, 0, 0xFFFF);
        Bytes.requireRange("destination port", destinationPort, 0, 0xFFFF);
        Bytes.requireRange("checksum", checksum, 0, 0xFFFF);
    }

    /** A header to the RoCEv2 port with checksum 0 (to be computed by the encoder for IPv6). */
    public static UdpHeader toRocePort(int sourcePort) {
        return new UdpHeader(sourcePort, ROCE_PORT, 0);
    }

    static UdpHeader decode(byte[] b, int off) {
        return new UdpHeader(Bytes.u16(b, off), Bytes.u16(b, off + 2), Bytes.u16(b, off + 6));
    }

    void encode(byte[] b, int off, int payloadLength) {
        write(b, off, sourcePort, destinationPort, payloadLength, checksum);
    }

    static void write(byte[] b, int off, int sourcePort, int destinationPort, int payloadLength, int checksum) {
        Bytes.u16(b, off, sourcePort);
        Bytes.u16(b, off + 2, destinationPort);
        Bytes.u16(b, off + 4, LENGTH + payloadLength);
        Bytes.u16(b, off + CHECKSUM_OFFSET, checksum);
    }

    /**
     * The UDP checksum of the datagram behind the IP header at {@code ipOffset} (IPv4 without
     * options or IPv6, by the version nibble): the one's-complement sum over the pseudo-header —
     * addresses, protocol 17, UDP length (RFC 768; RFC 8200 §8.1 for IPv6) — and the
     * {@code udpLength} bytes of UDP header and payload, the checksum field itself counted as zero.
     * Never 0: a computed 0 is sent as 0xFFFF (RFC 768), since 0 means "no checksum".
     */
    public static int checksum(byte[] b, int ipOffset, int udpLength) {
        boolean v6 = IpHeader.versionAt(b, ipOffset) == 6;
        int addresses = ipOffset + (v6 ? Ipv6Header.SOURCE_OFFSET : Ipv4Header.SOURCE_OFFSET);
        long sum = 0;
        for (int i = 0; i < (v6 ? 32 : 8); i += 2) { // source and destination addresses
            sum += Bytes.u16(b, addresses + i);
        }
        sum += udpLength + Ipv4Header.PROTOCOL_UDP; // IPv6's next header UDP is the same 17
        int udp = ipOffset + (v6 ? Ipv6Header.LENGTH : Ipv4Header.LENGTH);
        for (int i = 0; i + 1 < udpLength; i += 2) {
            sum += i == CHECKSUM_OFFSET ? 0 : Bytes.u16(b, udp + i);
        }
        if ((udpLength & 1) != 0) {
            sum += (b[udp + udpLength - 1] & 0xFF) << 8;
        }
        while ((sum >>> 16) != 0) {
            sum = (sum & 0xFFFF) + (sum >>> 16);
        }
        int checksum = (int) ~sum & 0xFFFF;
        return checksum == 0 ? 0xFFFF : checksum;
    }

    /**
     * Computes and stores the checksum of the datagram behind the IP header at {@code ipOffset},
     * as long as its UDP header's length field says (a received datagram's tap copy, say).
     */
    public static void fillChecksum(byte[] b, int ipOffset) {
        int udp = ipOffset + (IpHeader.versionAt(b, ipOffset) == 6 ? Ipv6Header.LENGTH : Ipv4Header.LENGTH);
        Bytes.u16(b, udp + CHECKSUM_OFFSET, checksum(b, ipOffset, Bytes.u16(b, udp + 4)));
    }

    public UdpHeader withChecksum(int value) {
        return new UdpHeader(sourcePort, destinationPort, value);
    }
}
