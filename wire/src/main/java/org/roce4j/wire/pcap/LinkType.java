package org.roce4j.wire.pcap;

/**
 * The link-layer type of every packet in a capture: the LINKTYPE_ value from the tcpdump.org
 * link-type registry (https://www.tcpdump.org/linktypes.html).
 *
 * <p>Only the values roce4j writes have names; a file with any other link type still reads, and
 * its type is reported by value.
 *
 * @param value the LINKTYPE_ number, 0 to 65535
 */
public record LinkType(int value) {

    /** LINKTYPE_ETHERNET (1): IEEE 802.3 Ethernet frames, starting with the destination MAC. */
    public static final LinkType ETHERNET = new LinkType(1);

    /**
     * LINKTYPE_INFINIBAND (247): raw InfiniBand packets, each record starting at the LRH and
     * ending with the VCRC. Wireshark 4.0's wiretap does not read it ("network type 247 unknown");
     * ibdump writes {@link #ERF} instead.
     */
    public static final LinkType INFINIBAND = new LinkType(247);

    /**
     * LINKTYPE_ERF (197): each record an Endace ERF record. ibdump (Mellanox, ibdump.h DLT_ERF)
     * writes InfiniBand captures this way, ERF type 21 (InfiniBand) then the packet from its LRH;
     * Wireshark hands those to its InfiniBand dissector. See {@link ErfInfiniband}.
     */
    public static final LinkType ERF = new LinkType(197);

    /**
     * Names a link type by its number.
     *
     * @throws IllegalArgumentException if {@code value} does not fit the 16 bits that
     *     draft-ietf-opsawg-pcap §4 gives the link type
     */
    public LinkType {
        if (value < 0 || value > 0xFFFF) {
            throw new IllegalArgumentException("link type must be 0..65535, was " + value);
        }
    }
}
