package org.roce4j.wire;

/**
 * A whole RoCEv2 frame as it appears on an Ethernet link: Ethernet, IPv4 or IPv6, UDP, then the
 * transport packet and its ICRC. Encode with {@link FrameEncoder} (which derives lengths, the IPv4
 * checksum and the ICRC); decode with {@link RoceDecoder}.
 */
public record RoceFrame(EthernetHeader ethernet, IpHeader ip, UdpHeader udp, RocePacket packet) {
    public RoceFrame {
        if (ethernet == null || ip == null || udp == null || packet == null) {
            throw new IllegalArgumentException("every layer is required");
        }
        int expectedType = ip.version() == 4 ? EthernetHeader.ETHERTYPE_IPV4 : EthernetHeader.ETHERTYPE_IPV6;
        if (ethernet.etherType() != expectedType) {
            throw new IllegalArgumentException("EtherType 0x" + Integer.toHexString(ethernet.etherType())
                    + " does not announce IPv" + ip.version());
        }
    }

    /** Bytes the frame takes on the wire (without Ethernet padding or FCS). */
    public int length() {
        return ethernet.length() + ip.length() + UdpHeader.LENGTH + packet.length() + IcrcCalculator.LENGTH;
    }

    /** Encodes to a new array; for the hot path, use a reused {@link FrameEncoder}. */
    public byte[] encode() {
        return new FrameEncoder().encode(this);
    }
}
