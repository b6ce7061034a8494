package org.roce4j.wire;

/**
 * Why a frame was not accepted as a RoCEv2 packet (or, by {@link IbDecoder}, as a RoCEv1 frame or
 * an InfiniBand packet). The first group is ordinary non-RoCE traffic (ARP, TCP, other UDP ports,
 * raw InfiniBand packets); everything else is a RoCE or InfiniBand packet that is malformed or corrupt.
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
    BAD_ICRC(true, "ICRC does not match"),

    // IbDecoder's (RoCEv1 and native InfiniBand), after RoCEv2's so that their order stays as it was.
    NOT_ROCE_V1(false, "EtherType is not RoCEv1 (0x8915)"),
    NOT_IBA_TRANSPORT(false, "LRH next header is raw, not IBA transport (IBTA 7.7.6)"),

    TRUNCATED_LRH(true, "packet shorter than its LRH"),
    BAD_LINK_VERSION(true, "LRH link version is not 0 (IBTA 7.7.3)"),
    BAD_PACKET_LENGTH(true, "LRH PktLen does not match the packet's length"),
    TRUNCATED_GRH(true, "packet shorter than its GRH"),
    BAD_GRH_VERSION(true, "GRH IPVer is not 6 (IBTA 8.3.1)"),
    NOT_BTH_NEXT_HEADER(true, "GRH next header is not 0x1B, BTH (IBTA 8.3.1)"),
    BAD_GRH_LENGTH(true, "GRH PayLen does not match the packet's length"),
    BAD_VCRC(true, "VCRC does not match");

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

    /**
     * True when {@link RoceDecoder} (RoCEv2) can give this reason; false for the ones only
     * {@link IbDecoder} gives: RoCEv1's EtherType, the LRH, the GRH and the VCRC.
     */
    public boolean appliesToRoceV2() {
        return switch (this) {
            case NOT_ROCE_V1, NOT_IBA_TRANSPORT, TRUNCATED_LRH, BAD_LINK_VERSION, BAD_PACKET_LENGTH, TRUNCATED_GRH,
                 BAD_GRH_VERSION, NOT_BTH_NEXT_HEADER, BAD_GRH_LENGTH, BAD_VCRC -> false;
            default -> true;
        };
    }

    public String description() {
        return description;
    }
}
