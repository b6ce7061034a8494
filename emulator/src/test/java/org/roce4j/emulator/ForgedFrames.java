package org.roce4j.emulator;

import org.roce4j.wire.IcrcCalculator;

/**
 * Hand-built RoCEv2 frames from a sender's IPv4 address (by default node A of {@link TwoNodes},
 * 10.0.0.1, 02:..:01) to a receiver's (node B, 10.0.0.2, 02:..:02), with a correct IPv4 checksum and
 * ICRC whatever the transport bytes hold: what a sender with that address could put on the wire.
 * Raw bytes, so that any field can be forged. For a UDP socket, {@link #udpPayload} is the datagram
 * (ICRC computed for Identification 0 and DF, what the UDP link checks first).
 */
final class ForgedFrames {
    static final int IP = 14;
    static final int BTH = IP + 20 + 8;
    private final IcrcCalculator icrc = new IcrcCalculator();
    private final int source;
    private final int destination;
    private final int sourcePort;

    ForgedFrames() {
        this(0x0A000001, 0x0A000002, 0xC001);
    }

    ForgedFrames(int sourceIpv4, int destinationIpv4, int udpSourcePort) {
        this.source = sourceIpv4;
        this.destination = destinationIpv4;
        this.sourcePort = udpSourcePort;
    }

    /** BTH (P_Key 0xFFFF, pad for the payload) + extension headers + payload, without ICRC. */
    static byte[] transport(int opcode, int qpn, int psn, boolean ackReq, byte[] headers, byte[] payload) {
        int pad = -payload.length & 3;
        byte[] t = new byte[12 + headers.length + payload.length + pad];
        t[0] = (byte) opcode;
        t[1] = (byte) (pad << 4);
        t[2] = (byte) 0xFF;
        t[3] = (byte) 0xFF;
        put(t, 5, qpn, 3);
        t[8] = (byte) (ackReq ? 0x80 : 0);
        put(t, 9, psn, 3);
        System.arraycopy(headers, 0, t, 12, headers.length);
        System.arraycopy(payload, 0, t, 12 + headers.length, payload.length);
        return t;
    }

    static byte[] reth(long va, int rkey, int length) {
        byte[] h = new byte[16];
        put(h, 0, (int) (va >>> 32), 4);
        put(h, 4, (int) va, 4);
        put(h, 8, rkey, 4);
        put(h, 12, length, 4);
        return h;
    }

    /** The whole Ethernet frame around {@code transport}: sender → receiver, UDP to 4791, ICRC filled in. */
    byte[] frame(byte[] transport) {
        int udpLength = 8 + transport.length + 4;
        byte[] f = new byte[IP + 20 + udpLength];
        f[5] = 2; // destination MAC 02:00:00:00:00:02
        f[0] = 2;
        f[6] = 2; // source MAC 02:00:00:00:00:01
        f[11] = 1;
        f[12] = 0x08;
        f[IP] = 0x45;
        put(f, IP + 2, 20 + udpLength, 2);
        f[IP + 6] = 0x40;
        f[IP + 8] = 64;
        f[IP + 9] = 17;
        put(f, IP + 12, source, 4);
        put(f, IP + 16, destination, 4);
        int sum = 0;
        for (int i = 0; i < 20; i += 2) {
            sum += (f[IP + i] & 0xFF) << 8 | f[IP + i + 1] & 0xFF;
        }
        while (sum > 0xFFFF) {
            sum = (sum & 0xFFFF) + (sum >>> 16);
        }
        put(f, IP + 10, ~sum & 0xFFFF, 2);
        put(f, IP + 20, sourcePort, 2);
        put(f, IP + 22, 4791, 2);
        put(f, IP + 24, udpLength, 2);
        System.arraycopy(transport, 0, f, BTH, transport.length);
        icrc.fill(f, IP, f.length - 4);
        return f;
    }

    /** The UDP payload of {@link #frame}: transport bytes and ICRC. */
    byte[] udpPayload(byte[] transport) {
        byte[] f = frame(transport);
        return java.util.Arrays.copyOfRange(f, BTH, f.length);
    }

    private static void put(byte[] b, int at, int value, int bytes) {
        for (int i = 0; i < bytes; i++) {
            b[at + i] = (byte) (value >>> 8 * (bytes - 1 - i));
        }
    }
}
