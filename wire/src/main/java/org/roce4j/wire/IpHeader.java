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
}
