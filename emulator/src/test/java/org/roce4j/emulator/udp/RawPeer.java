package org.roce4j.emulator.udp;

import java.io.IOException;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;

import org.roce4j.wire.IcrcCalculator;

/**
 * A hand-made RoCEv2 sender on a plain UDP socket: builds a packet (BTH …) behind the IP and UDP
 * headers a sender would use, computes the ICRC over them — with any IPv4 Identification, as Linux
 * rxe's changing ones — and sends the UDP payload. For frames nobody well-behaved would send.
 */
final class RawPeer implements AutoCloseable {
    final DatagramSocket socket;
    final InetAddress local;

    RawPeer(String localAddress) throws IOException {
        local = InetAddress.ofLiteral(localAddress);
        socket = new DatagramSocket(new InetSocketAddress(local, 0));
    }

    /** UD SEND_ONLY (opcode 0x64) with DETH, to {@code qpn} at {@code to}, P_Key 0xFFFF. */
    static byte[] udSend(int qpn, int qkey, int sourceQp, int psn, byte[] payload) {
        int pad = -payload.length & 3;
        byte[] t = new byte[12 + 8 + payload.length + pad];
        t[0] = 0x64;
        t[1] = (byte) (pad << 4);
        t[2] = (byte) 0xFF;
        t[3] = (byte) 0xFF;
        put24(t, 5, qpn);
        put24(t, 9, psn);
        put32(t, 12, qkey);
        put24(t, 17, sourceQp);
        System.arraycopy(payload, 0, t, 20, payload.length);
        return t;
    }

    /** RC SEND_ONLY (opcode 0x04), AckReq, to {@code qpn}. */
    static byte[] rcSend(int qpn, int psn, byte[] payload) {
        int pad = -payload.length & 3;
        byte[] t = new byte[12 + payload.length + pad];
        t[0] = 0x04;
        t[1] = (byte) (pad << 4);
        t[2] = (byte) 0xFF;
        t[3] = (byte) 0xFF;
        put24(t, 5, qpn);
        t[8] = (byte) 0x80;
        put24(t, 9, psn);
        System.arraycopy(payload, 0, t, 12, payload.length);
        return t;
    }

    /** RC or UC RDMA WRITE ONLY (opcode 0x0A / 0x2A) with its RETH, AckReq, to {@code qpn}. */
    static byte[] writeOnly(boolean uc, int qpn, int psn, long va, int rkey, byte[] payload) {
        int pad = -payload.length & 3;
        byte[] t = new byte[12 + 16 + payload.length + pad];
        t[0] = (byte) (uc ? 0x2A : 0x0A);
        t[1] = (byte) (pad << 4);
        t[2] = (byte) 0xFF;
        t[3] = (byte) 0xFF;
        put24(t, 5, qpn);
        t[8] = (byte) 0x80;
        put24(t, 9, psn);
        put32(t, 12, (int) (va >>> 32));
        put32(t, 16, (int) va);
        put32(t, 20, rkey);
        put32(t, 24, payload.length);
        System.arraycopy(payload, 0, t, 28, payload.length);
        return t;
    }

    /**
     * The UDP payload (transport bytes + ICRC) for {@code to}, the ICRC computed as if the IPv4
     * header carried {@code identification} and DF.
     */
    byte[] datagram(byte[] transport, InetAddress to, int identification) {
        return datagram(transport, to, identification, socket.getLocalPort());
    }

    /** As {@link #datagram(byte[], InetAddress, int)}, for a datagram sent from {@code port} by another socket. */
    byte[] datagram(byte[] transport, InetAddress to, int identification, int port) {
        boolean v6 = to instanceof Inet6Address;
        int ipLength = v6 ? 40 : 20;
        int udpLength = 8 + transport.length + 4;
        byte[] f = new byte[ipLength + udpLength];
        byte[] src = local.getAddress();
        byte[] dst = to.getAddress();
        if (v6) {
            f[0] = 0x60;
            f[4] = (byte) (udpLength >>> 8);
            f[5] = (byte) udpLength;
            f[6] = 17;
            f[7] = 64;
            System.arraycopy(src, 0, f, 8, 16);
            System.arraycopy(dst, 0, f, 24, 16);
        } else {
            f[0] = 0x45;
            f[2] = (byte) ((20 + udpLength) >>> 8);
            f[3] = (byte) (20 + udpLength);
            f[4] = (byte) (identification >>> 8);
            f[5] = (byte) identification;
            f[6] = 0x40;
            f[8] = 64;
            f[9] = 17;
            System.arraycopy(src, 0, f, 12, 4);
            System.arraycopy(dst, 0, f, 16, 4);
        }
        int udp = ipLength;
        f[udp] = (byte) (port >>> 8);
        f[udp + 1] = (byte) port;
        f[udp + 2] = (byte) (4791 >>> 8);
        f[udp + 3] = (byte) 4791;
        f[udp + 4] = (byte) (udpLength >>> 8);
        f[udp + 5] = (byte) udpLength;
        System.arraycopy(transport, 0, f, udp + 8, transport.length);
        new IcrcCalculator().fill(f, 0, f.length - 4);
        byte[] payload = new byte[udpLength - 8];
        System.arraycopy(f, udp + 8, payload, 0, payload.length);
        return payload;
    }

    void send(byte[] datagram, InetAddress to) throws IOException {
        socket.send(new DatagramPacket(datagram, datagram.length, new InetSocketAddress(to, 4791)));
    }

    private static void put24(byte[] b, int at, int v) {
        b[at] = (byte) (v >>> 16);
        b[at + 1] = (byte) (v >>> 8);
        b[at + 2] = (byte) v;
    }

    private static void put32(byte[] b, int at, int v) {
        b[at] = (byte) (v >>> 24);
        put24(b, at + 1, v);
    }

    @Override
    public void close() {
        socket.close();
    }
}
