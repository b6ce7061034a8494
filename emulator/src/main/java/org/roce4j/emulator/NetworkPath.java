package org.roce4j.emulator;

import org.roce4j.verbs.AhAttr;
import org.roce4j.verbs.Gid;

/**
 * An address vector resolved for the wire: which IP version, the addresses' bytes, the MAC of the
 * next hop, and the IP fields the AV sets. Built once when a QP gets its path or an AH is created;
 * the requester then writes frames from it without allocating.
 */
final class NetworkPath {
    final boolean ipv6;
    final byte[] sourceIp;
    final byte[] destinationIp;
    final Gid destinationGid;
    final int trafficClass;
    final int hopLimit;
    final int flowLabel;
    /** The destination MAC, resolved lazily: -1 until the neighbour is known. */
    long destinationMac = -1;

    NetworkPath(Gid source, AhAttr av) {
        this.destinationGid = av.dgid();
        this.ipv6 = !av.dgid().isIpv4Mapped();
        this.sourceIp = ipBytes(source, ipv6);
        this.destinationIp = ipBytes(av.dgid(), ipv6);
        this.trafficClass = av.trafficClass() & 0xFF;
        // An IP TTL of 0 would be dropped by the first router; 64 is what an unset hop limit means here.
        this.hopLimit = av.hopLimit() == 0 ? 64 : av.hopLimit() & 0xFF;
        this.flowLabel = av.flowLabel() & 0xFFFFF;
    }

    private static byte[] ipBytes(Gid gid, boolean ipv6) {
        byte[] raw = gid.raw();
        if (ipv6) {
            return raw;
        }
        return new byte[] {raw[12], raw[13], raw[14], raw[15]};
    }
}
