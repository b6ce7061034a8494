package org.roce4j.wire;

/**
 * UDP header (RFC 768). The length is derived on encode. The checksum is kept as given: RoCEv2
 * masks it out of the ICRC (A17.4.2), Linux rxe sends 0 over IPv4, and over IPv6 a real checksum
 * is required (RFC 8200 §8.1), which {@link FrameEncoder} computes when asked to.
 */
public record UdpHeader(int sourcePort, int destinationPort, int checksum) {
    /** The IANA port for RoCEv2 (A17.4.1). */
    public static final int ROCE_PORT = 4791;
    static final int LENGTH = 8;

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
        Bytes.u16(b, off + 6, checksum);
    }

    public UdpHeader withChecksum(int value) {
        return new UdpHeader(sourcePort, destinationPort, value);
    }
}
