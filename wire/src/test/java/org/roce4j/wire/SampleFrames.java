package org.roce4j.wire;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.List;

/** Fixed, realistic frames for tests that need one concrete packet. */
final class SampleFrames {
    static final MacAddress SERVER_MAC = MacAddress.parse("02:00:c0:a8:4d:02");
    static final MacAddress CLIENT_MAC = MacAddress.parse("02:00:c0:a8:4d:03");

    private SampleFrames() {}

    /** An RC RDMA WRITE Only with a 13-byte payload (pad 3) from 192.168.77.3 to .2, like rxe sends. */
    static RoceFrame ipv4Write() {
        byte[] payload = new byte[13];
        for (int i = 0; i < payload.length; i++) {
            payload[i] = (byte) (0xA0 + i);
        }
        RocePacket packet = RocePacket.of(Bth.of(Opcode.RC_RDMA_WRITE_ONLY, 0x000011, 0x123456).withAckReq(true),
                List.of(new Reth(0x00007f0012340000L, 0x1234, payload.length)), payload);
        return new RoceFrame(new EthernetHeader(SERVER_MAC, CLIENT_MAC, EthernetHeader.ETHERTYPE_IPV4),
                new Ipv4Header(0, 0x1c2d, true, 64, v4("192.168.77.3"), v4("192.168.77.2")),
                UdpHeader.toRocePort(0xc0de), packet);
    }

    /** The same packet over IPv6 link-local addresses. */
    static RoceFrame ipv6Write() {
        RoceFrame v4 = ipv4Write();
        return new RoceFrame(new EthernetHeader(SERVER_MAC, CLIENT_MAC, EthernetHeader.ETHERTYPE_IPV6),
                new Ipv6Header(0, 0x12345, 64, Ipv6Header.parseAddress("fe80::3"), Ipv6Header.parseAddress("fe80::2")),
                v4.udp(), v4.packet());
    }

    static Inet4Address v4(String text) {
        try {
            return (Inet4Address) InetAddress.getByName(text);
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException(text, e);
        }
    }
}
