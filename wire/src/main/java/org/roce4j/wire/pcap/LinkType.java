package org.roce4j.wire.pcap;

/**
 * The link-layer type of every packet in a capture: the LINKTYPE_ value from the tcpdump.org
 * link-type registry (https://www.tcpdump.org/linktypes.html).
 *
 * <p>Only the value roce4j writes has a name; a file with any other link type still reads, and
 * its type is reported by value.
 *
 * @param value the LINKTYPE_ number, 0 to 65535
 */
public record LinkType(int value) {

    /** LINKTYPE_ETHERNET (1): IEEE 802.3 Ethernet frames, starting with the destination MAC. */
    public static final LinkType ETHERNET = new LinkType(1);

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
