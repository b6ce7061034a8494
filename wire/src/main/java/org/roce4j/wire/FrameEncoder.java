package org.roce4j.wire;

/**
 * Writes {@link RoceFrame}s as bytes: derives the IP and UDP lengths, the IPv4 header checksum
 * and the ICRC, and — for IPv6, where a zero UDP checksum is illegal (RFC 8200 §8.1) — the UDP
 * checksum when the header's is 0. Reuse one instance per thread: encoding into a caller's
 * buffer allocates nothing.
 */
public final class FrameEncoder {
    private final IcrcCalculator icrc = new IcrcCalculator();

    /** Encodes into a new array of exactly {@link RoceFrame#length()} bytes. */
    public byte[] encode(RoceFrame frame) {
        byte[] bytes = new byte[frame.length()];
        encodeInto(frame, bytes, 0);
        return bytes;
    }

    /**
     * Encodes at {@code offset}; the buffer needs {@link RoceFrame#length()} bytes there.
     *
     * @return the number of bytes written
     */
    public int encodeInto(RoceFrame frame, byte[] buffer, int offset) {
        IpHeader ip = frame.ip();
        int ipOffset = offset + frame.ethernet().length();
        int udpOffset = ipOffset + ip.length();
        int udpPayload = frame.packet().length() + IcrcCalculator.LENGTH;
        frame.ethernet().encode(buffer, offset);
        ip.encode(buffer, ipOffset, UdpHeader.LENGTH + udpPayload);
        frame.udp().encode(buffer, udpOffset, udpPayload);
        int written = frame.packet().encode(buffer, udpOffset + UdpHeader.LENGTH);
        int icrcOffset = udpOffset + UdpHeader.LENGTH + written;
        icrc.fill(buffer, ipOffset, icrcOffset);
        if (ip.version() == 6 && frame.udp().checksum() == 0) {
            // The ICRC masks the UDP checksum, so filling it in afterwards leaves the ICRC valid.
            Bytes.u16(buffer, udpOffset + UdpHeader.CHECKSUM_OFFSET,
                    UdpHeader.checksum(buffer, ipOffset, UdpHeader.LENGTH + udpPayload));
        }
        return icrcOffset + IcrcCalculator.LENGTH - offset;
    }
}
