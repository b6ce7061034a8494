package org.roce4j.wire;

/**
 * Why a frame was not accepted as a RoCEv2 packet. The first group is ordinary non-RoCE traffic
 * (ARP, TCP, other UDP ports); everything else is a RoCEv2 frame that is malformed or corrupt.
 */
public enum DropReason {
    NOT_IP(false, "EtherType is neither IPv4 nor IPv6"),
    NOT_UDP(false, "IP protocol is not UDP"),
    IPV4_FRAGMENT(false, "IPv4 fragment (RoCEv2 packets are never fragmented)"),
    NOT_ROCE_PORT(false, "UDP destination port is not 4791"),

    TRUNCATED_ETHERNET(true, "frame shorter than its Ethernet header"),
    TRUNCATED_IP(true, "frame shorter than its IP header or IP length"),
    BAD_IP_VERSION(true, "IP version does not match the EtherType"),
    IPV4_OPTIONS(true, "IPv4 header has options (IHL != 5), which RoCEv2 does not use"),
    BAD_IP_LENGTH(true, "IP length field is inconsistent"),
    BAD_IPV4_CHECKSUM(true, "IPv4 header checksum is wrong"),
    TRUNCATED_UDP(true, "datagram shorter than a UDP header"),
    BAD_UDP_LENGTH(true, "UDP length does not match the IP length"),
    TRUNCATED_BTH(true, "UDP payload shorter than BTH + ICRC"),
    BAD_TRANSPORT_VERSION(true, "BTH transport version is not 0"),
    UNKNOWN_OPCODE(true, "BTH opcode is reserved"),
    TRUNCATED_HEADERS(true, "packet shorter than the headers its opcode requires"),
    UNEXPECTED_PAYLOAD(true, "opcode carries no payload but bytes follow its headers"),
    BAD_PAD_COUNT(true, "pad count inconsistent with the payload length"),
    BAD_ICRC(true, "ICRC does not match");

    private final boolean roce;
    private final String description;

    DropReason(boolean roce, String description) {
        this.roce = roce;
        this.description = description;
    }

    /** True when the frame was RoCEv2 traffic (to UDP 4791) and so its drop is an error. */
    public boolean isRoce() {
        return roce;
    }

    public String description() {
        return description;
    }
}
