package org.roce4j.emulator.fabric;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import org.roce4j.wire.Aeth;
import org.roce4j.wire.Bth;
import org.roce4j.wire.EthernetHeader;
import org.roce4j.wire.ExtensionHeader;
import org.roce4j.wire.FrameEncoder;
import org.roce4j.wire.Ipv4Header;
import org.roce4j.wire.MacAddress;
import org.roce4j.wire.Opcode;
import org.roce4j.wire.RoceFrame;
import org.roce4j.wire.RocePacket;
import org.roce4j.wire.UdpHeader;

/** Frames and receivers for the fabric tests. */
final class TestFrames {
    static final MacAddress A = MacAddress.parse("02:00:00:00:00:0a");
    static final MacAddress B = MacAddress.parse("02:00:00:00:00:0b");
    static final MacAddress C = MacAddress.parse("02:00:00:00:00:0c");
    static final MacAddress NOBODY = MacAddress.parse("02:00:00:00:00:99");

    private TestFrames() {}

    /** An Ethernet frame of {@code length} bytes whose payload bytes are all {@code fill}. */
    static byte[] frame(MacAddress to, MacAddress from, int fill, int length) {
        byte[] frame = new byte[length];
        putMac(frame, 0, to);
        putMac(frame, 6, from);
        frame[12] = 0x08; // IPv4 EtherType; the fabric does not look past the MACs
        for (int i = 14; i < length; i++) {
            frame[i] = (byte) fill;
        }
        return frame;
    }

    /** A real RoCEv2 SEND Only frame, encoded with its ICRC, from {@code from} to {@code to}. */
    static byte[] roceSend(MacAddress to, MacAddress from, int psn, byte[] payload) {
        return roce(to, from, Opcode.RC_SEND_ONLY, psn, List.of(), payload);
    }

    /** A real RoCEv2 RC ACK (AETH, no payload), encoded with its ICRC. */
    static byte[] roceAck(MacAddress to, MacAddress from, int psn) {
        return roce(to, from, Opcode.RC_ACKNOWLEDGE, psn, List.of(Aeth.ack(31, psn)), new byte[0]);
    }

    /** A real RoCEv2 RC READ response Only (AETH and {@code payload}), encoded with its ICRC. */
    static byte[] roceReadResponse(MacAddress to, MacAddress from, int psn, byte[] payload) {
        return roce(to, from, Opcode.RC_RDMA_READ_RESPONSE_ONLY, psn, List.of(Aeth.ack(31, psn)), payload);
    }

    /** A real RoCEv2 frame, encoded with its ICRC. */
    static byte[] roce(MacAddress to, MacAddress from, Opcode opcode, int psn, List<ExtensionHeader> headers,
            byte[] payload) {
        RocePacket packet = RocePacket.of(Bth.of(opcode, 0x11, psn), headers, payload);
        RoceFrame frame = new RoceFrame(new EthernetHeader(to, from, EthernetHeader.ETHERTYPE_IPV4),
                new Ipv4Header(0, 0, true, 64, ip("192.168.77.3"), ip("192.168.77.2")),
                UdpHeader.toRocePort(0xc0de), packet);
        return new FrameEncoder().encode(frame);
    }

    private static java.net.Inet4Address ip(String text) {
        try {
            return (java.net.Inet4Address) InetAddress.getByName(text);
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException(e);
        }
    }

    private static void putMac(byte[] frame, int offset, MacAddress mac) {
        for (int i = 0; i < 6; i++) {
            frame[offset + i] = (byte) (mac.value() >>> (40 - 8 * i));
        }
    }

    /** One delivery as a receiver saw it. */
    record Arrival(String port, long nowNanos, byte[] bytes) {
        String hex() {
            return HexFormat.of().formatHex(bytes);
        }

        @Override
        public String toString() {
            return port + "@" + nowNanos + ":" + hex();
        }
    }

    /** Records every frame a port receives, copying it (the fabric reuses the array). */
    static final class Recorder implements FrameReceiver {
        final String name;
        final List<Arrival> arrivals;

        Recorder(String name, List<Arrival> log) {
            this.name = name;
            this.arrivals = log;
        }

        Recorder(String name) {
            this(name, new ArrayList<>());
        }

        @Override
        public void onFrame(byte[] frame, int offset, int length, long nowNanos) {
            arrivals.add(new Arrival(name, nowNanos, java.util.Arrays.copyOfRange(frame, offset, offset + length)));
        }
    }
}
