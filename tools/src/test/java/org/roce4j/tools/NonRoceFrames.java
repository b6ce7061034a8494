package org.roce4j.tools;

import java.nio.ByteBuffer;

/** Ordinary non-RoCE frames built by hand, byte by byte, for decode to skip. */
final class NonRoceFrames {
    private static final byte[] MAC_A = {0x02, 0, 0, 0, 0, 0x01};
    private static final byte[] MAC_B = {0x02, 0, 0, 0, 0, 0x02};
    private static final byte[] BROADCAST = {-1, -1, -1, -1, -1, -1};
    private static final byte[] IP_A = {(byte) 192, 0, 2, 1};
    private static final byte[] IP_B = {(byte) 192, 0, 2, 2};

    private NonRoceFrames() {}

    /** RFC 826: who has 192.0.2.2? tell 192.0.2.1. */
    static byte[] arpRequest() {
        ByteBuffer b = ByteBuffer.allocate(14 + 28);
        b.put(BROADCAST).put(MAC_A).putShort((short) 0x0806);
        b.putShort((short) 1).putShort((short) 0x0800).put((byte) 6).put((byte) 4).putShort((short) 1);
        b.put(MAC_A).put(IP_A).put(new byte[6]).put(IP_B);
        return b.array();
    }

    /** A TCP SYN to perftest's port 18515. */
    static byte[] tcpSyn() {
        ByteBuffer tcp = ByteBuffer.allocate(20);
        tcp.putShort((short) 40000).putShort((short) 18515).putInt(1).putInt(0)
                .put((byte) 0x50).put((byte) 0x02).putShort((short) 64240).putShort((short) 0).putShort((short) 0);
        return ipv4(6, tcp.array());
    }

    /** A UDP datagram to port 53. */
    static byte[] dnsQuery() {
        ByteBuffer udp = ByteBuffer.allocate(12);
        udp.putShort((short) 40001).putShort((short) 53).putShort((short) 12).putShort((short) 0).putInt(0x12340100);
        return ipv4(17, udp.array());
    }

    private static byte[] ipv4(int protocol, byte[] payload) {
        ByteBuffer b = ByteBuffer.allocate(14 + 20 + payload.length);
        b.put(MAC_B).put(MAC_A).putShort((short) 0x0800);
        b.put((byte) 0x45).put((byte) 0).putShort((short) (20 + payload.length)).putShort((short) 0x1234)
                .putShort((short) 0x4000).put((byte) 64).put((byte) protocol).putShort((short) 0).put(IP_A).put(IP_B);
        int sum = 0;
        for (int i = 14; i < 34; i += 2) {
            sum += b.getShort(i) & 0xFFFF;
        }
        sum = (sum & 0xFFFF) + (sum >>> 16);
        sum = (sum & 0xFFFF) + (sum >>> 16);
        b.putShort(24, (short) ~sum);
        b.put(payload);
        return b.array();
    }
}
