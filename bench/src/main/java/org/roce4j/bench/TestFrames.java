package org.roce4j.bench;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.List;
import java.util.SplittableRandom;
import org.roce4j.wire.Bth;
import org.roce4j.wire.EthernetHeader;
import org.roce4j.wire.Ipv4Header;
import org.roce4j.wire.MacAddress;
import org.roce4j.wire.Opcode;
import org.roce4j.wire.Reth;
import org.roce4j.wire.RocePacket;
import org.roce4j.wire.RoceFrame;
import org.roce4j.wire.UdpHeader;

/**
 * The frame every wire benchmark measures: one RC RDMA WRITE Only (BTH + RETH) over untagged
 * Ethernet and IPv4, {@code 74 + payloadSize} bytes: Ethernet 14, IPv4 20, UDP 8, BTH 12, RETH 16,
 * payload (a multiple of 4 here, so no pad), ICRC 4.
 */
final class TestFrames {
    /** Frame bytes besides the payload. */
    static final int OVERHEAD = 14 + 20 + 8 + 12 + 16 + 4;

    private TestFrames() {}

    static RoceFrame rcWriteOnly(int payloadSize) {
        byte[] payload = new byte[payloadSize];
        new SplittableRandom(4791).nextBytes(payload); // seeded: every run measures the same bytes
        RocePacket packet = RocePacket.of(
                Bth.of(Opcode.RC_RDMA_WRITE_ONLY, 0x000011, 0x000123),
                List.of(new Reth(0x7f00_1234_5000L, 0x0000_1a2b, payloadSize)),
                payload);
        return new RoceFrame(
                new EthernetHeader(MacAddress.parse("02:00:00:00:00:02"), MacAddress.parse("02:00:00:00:00:01"),
                        EthernetHeader.ETHERTYPE_IPV4),
                // DF set and a fixed Identification, as a Linux UDP socket with IP_DONTFRAGMENT sends
                new Ipv4Header(0x02, 0, true, 64, ipv4("10.0.0.1"), ipv4("10.0.0.2")),
                UdpHeader.toRocePort(0xC001),
                packet);
    }

    private static Inet4Address ipv4(String text) {
        try {
            return (Inet4Address) InetAddress.getByName(text); // a literal: no lookup happens
        } catch (UnknownHostException impossible) {
            throw new AssertionError(impossible);
        }
    }
}
