package org.roce4j.wire;

/** How the InfiniBand transport (BTH onward) travels: the three formats roce4j reads and writes. */
public enum Encapsulation {
    /** Ethernet, IPv4 or IPv6, UDP to port 4791 (IBTA Annex A17). */
    ROCE_V2("RoCEv2"),
    /** Ethernet with EtherType 0x8915, then a GRH (IBTA Annex A16). */
    ROCE_V1("RoCEv1"),
    /** A native InfiniBand packet: LRH, an optional GRH, then BTH … ICRC and VCRC (IBTA Vol. 1 ch. 7). */
    INFINIBAND("IB");

    private final String displayName;

    Encapsulation(String displayName) {
        this.displayName = displayName;
    }

    /** RoCEv2, RoCEv1 or IB, as {@code roce4j decode} prints it. */
    public String displayName() {
        return displayName;
    }
}
