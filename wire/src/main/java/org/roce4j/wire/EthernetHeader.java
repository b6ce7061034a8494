package org.roce4j.wire;

import java.util.Optional;

/**
 * Ethernet II header, optionally with one 802.1Q tag: 14 bytes, or 18 with the tag.
 * {@code etherType} is the type of what follows (0x0800 IPv4, 0x86DD IPv6), after the tag if any.
 */
public record EthernetHeader(MacAddress destination, MacAddress source, Optional<VlanTag> vlan, int etherType) {
    public static final int ETHERTYPE_IPV4 = 0x0800;
    public static final int ETHERTYPE_IPV6 = 0x86DD;
    public static final int ETHERTYPE_VLAN = 0x8100;
    /** RoCEv1: a GRH and the InfiniBand transport follow (IBTA Annex A16). */
    public static final int ETHERTYPE_ROCE_V1 = 0x8915;
    static final int LENGTH = 14;
    static final int VLAN_TAG_LENGTH = 4;

    public EthernetHeader {
        Bytes.requireRange("EtherType", etherType, 0, 0xFFFF);
        if (destination == null || source == null || vlan == null) {
            throw new IllegalArgumentException("addresses and vlan (Optional.empty() for none) are required");
        }
    }

    /** An untagged header. */
    public EthernetHeader(MacAddress destination, MacAddress source, int etherType) {
        this(destination, source, Optional.empty(), etherType);
    }

    /** The EtherType of the frame's payload, after one 802.1Q tag if there is one; -1 when too short to say. */
    public static int etherTypeOf(byte[] frame) {
        if (frame.length < LENGTH) {
            return -1;
        }
        int type = Bytes.u16(frame, 12);
        if (type != ETHERTYPE_VLAN) {
            return type;
        }
        return frame.length < LENGTH + VLAN_TAG_LENGTH ? -1 : Bytes.u16(frame, 16);
    }

    /** {@return where the payload (the IP header) of the frame at {@code frame[offset..]} starts: after one 802.1Q tag if there is one} */
    public static int payloadOffset(byte[] frame, int offset) {
        return offset + LENGTH + (Bytes.u16(frame, offset + 12) == ETHERTYPE_VLAN ? VLAN_TAG_LENGTH : 0);
    }

    /** Bytes this header takes on the wire. */
    public int length() {
        return vlan.isPresent() ? LENGTH + VLAN_TAG_LENGTH : LENGTH;
    }

    void encode(byte[] b, int off) {
        write(b, off, destination.value(), source.value(), vlan.isPresent() ? vlan.get().tci() : -1, etherType);
    }

    /** Writes the header with an 802.1Q tag carrying {@code vlanTci}, or untagged when it is -1. */
    static void write(byte[] b, int off, long destination, long source, int vlanTci, int etherType) {
        MacAddress.write(b, off, destination);
        MacAddress.write(b, off + 6, source);
        if (vlanTci >= 0) {
            Bytes.u16(b, off + 12, ETHERTYPE_VLAN);
            Bytes.u16(b, off + 14, vlanTci);
            Bytes.u16(b, off + 16, etherType);
        } else {
            Bytes.u16(b, off + 12, etherType);
        }
    }
}
