package org.roce4j.wire;

import java.net.InetAddress;

/**
 * The IP header of a RoCEv2 frame. Lengths and the IPv4 header checksum are not fields: they are
 * derived from the content when encoding and checked when decoding.
 */
public sealed interface IpHeader permits Ipv4Header, Ipv6Header {
    /** 4 or 6. */
    int version();

    /** IPv4 TOS / IPv6 traffic class: DSCP in the upper six bits, ECN in the lower two. */
    int trafficClass();

    InetAddress source();

    InetAddress destination();

    /** Header length in bytes. */
    int length();

    /** DSCP, the upper six bits of the traffic class. */
    default int dscp() {
        return trafficClass() >>> 2;
    }

    /** ECN, the lower two bits of the traffic class (RFC 3168; RoCEv2 A17.9 marks CE = 3). */
    default int ecn() {
        return trafficClass() & 0x3;
    }

    /** Writes the header for a datagram whose payload (UDP header onward) is {@code payloadLength} bytes. */
    void encode(byte[] b, int off, int payloadLength);

    /** The version nibble of the IP header at {@code off}: 4 or 6 for the headers RoCEv2 uses. */
    static int versionAt(byte[] b, int off) {
        return Bytes.u8(b, off) >>> 4;
    }

    /**
     * Rewrites, in the IP header at {@code off}, the fields routers may change and the ICRC
     * therefore masks (IBTA A17.4.2, see {@link IcrcCalculator}) — IPv4: TOS and TTL, and the
     * header checksum recomputed; IPv6: traffic class, flow label and hop limit — so the ICRC
     * stays valid. IPv4 has no flow label: {@code flowLabel} is ignored there.
     */
    static void writeVariantFields(byte[] b, int off, int trafficClass, int flowLabel, int hopLimit) {
        if (versionAt(b, off) == 6) {
            Ipv6Header.writeVariantFields(b, off, trafficClass, flowLabel, hopLimit);
        } else {
            Ipv4Header.writeVariantFields(b, off, trafficClass, hopLimit);
        }
    }
}
