package org.roce4j.tools;

import static java.lang.String.format;
import static java.util.Locale.ROOT;

import org.roce4j.wire.DropReason;
import org.roce4j.wire.PacketInfo;

/**
 * Names the kind of a frame that is not RoCEv2 (ARP, TCP, another UDP port, ...) from the
 * EtherType or IP protocol the decoder stopped at, so the decode listing says what it skipped.
 */
final class NonRoceTraffic {
    private final PacketInfo probe = new PacketInfo();

    /** What kind of traffic {@code frame} is; call only for a frame dropped as non-RoCE. */
    String kind(byte[] frame) {
        probe.parseFrame(frame, 0, frame.length);
        DropReason reason = probe.dropReason();
        int value = (int) probe.dropValue();
        if (reason == null) {
            return "RoCEv2";
        }
        return switch (reason) {
            case NOT_IP -> etherType(value);
            case NOT_UDP -> ipProtocol(value);
            case IPV4_FRAGMENT -> "IPv4 fragment";
            case NOT_ROCE_PORT -> "UDP";
            default -> reason.name();
        };
    }

    private static String etherType(int type) {
        return switch (type) {
            case 0x0806 -> "ARP";
            case 0x8035 -> "RARP";
            case 0x8808 -> "PAUSE/PFC"; // IEEE 802.3 MAC control: the flow control lossless RoCE relies on
            case 0x88CC -> "LLDP";
            case 0x8915 -> "RoCEv1";
            default -> format(ROOT, "EtherType 0x%04x", type);
        };
    }

    private static String ipProtocol(int protocol) {
        return switch (protocol) {
            case 1 -> "ICMP";
            case 2 -> "IGMP";
            case 6 -> "TCP";
            case 58 -> "ICMPv6";
            case 132 -> "SCTP";
            default -> "IP protocol " + protocol;
        };
    }
}
