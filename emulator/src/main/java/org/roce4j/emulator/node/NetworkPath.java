package org.roce4j.emulator.node;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

import org.roce4j.verbs.AhAttr;
import org.roce4j.verbs.Gid;

/**
 * An address vector resolved for the wire: which IP version, the addresses' bytes, the MAC of the
 * next hop, and the IP fields the AV sets. Built once when a QP gets its path or an AH is created;
 * the requester then writes frames from it without allocating.
 */
public final class NetworkPath {
    private static final VarHandle WORD = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);

    public final boolean ipv6;
    public final byte[] sourceIp;
    public final byte[] destinationIp;
    final Gid destinationGid;
    public final int trafficClass;
    public final int hopLimit;
    public final int flowLabel;
    /** The destination MAC, resolved lazily: -1 until the neighbour is known. */
    long destinationMac = -1;
    /**
     * The IP source and destination of a packet that comes back along this path — our destination, then our
     * source — as the big-endian words they fill in the header (IPv4: one; IPv6: four), so that
     * {@link #isReturning} compares words instead of bytes on every packet a connected QP receives.
     */
    private final long returning0;
    private final long returning1;
    private final long returning2;
    private final long returning3;

    public NetworkPath(Gid source, AhAttr av) {
        this.destinationGid = av.dgid();
        this.ipv6 = !av.dgid().isIpv4Mapped();
        this.sourceIp = ipBytes(source, ipv6);
        this.destinationIp = ipBytes(av.dgid(), ipv6);
        this.trafficClass = av.trafficClass() & 0xFF;
        this.hopLimit = hopLimit(av);
        this.flowLabel = av.flowLabel() & 0xFFFFF;
        byte[] header = new byte[32];
        System.arraycopy(destinationIp, 0, header, 0, destinationIp.length);
        System.arraycopy(sourceIp, 0, header, destinationIp.length, sourceIp.length);
        this.returning0 = (long) WORD.get(header, 0);
        this.returning1 = (long) WORD.get(header, 8);
        this.returning2 = (long) WORD.get(header, 16);
        this.returning3 = (long) WORD.get(header, 24);
    }

    /**
     * {@return whether the IP addresses at {@code sourceOffset} of {@code frame} (source, then destination, as
     * IPv4 and IPv6 headers hold them) are this path's reversed} — the packet came from our destination to our
     * source (rxe_recv.c {@code check_addr}). The caller has checked the IP version.
     */
    public boolean isReturning(byte[] frame, int sourceOffset) {
        if (!ipv6) {
            return (long) WORD.get(frame, sourceOffset) == returning0;
        }
        return (long) WORD.get(frame, sourceOffset) == returning0
                && (long) WORD.get(frame, sourceOffset + 8) == returning1
                && (long) WORD.get(frame, sourceOffset + 16) == returning2
                && (long) WORD.get(frame, sourceOffset + 24) == returning3;
    }

    /** The IP TTL / hop limit Linux puts in the frames. */
    static final int ROUTE_HOP_LIMIT = 64;

    /**
     * Linux resolves a RoCE address vector through the IP route and replaces the GRH hop limit with
     * the route's for any destination that is not link-local (core/verbs.c ib_resolve_unicast_gid_dmac:
     * {@code grh->hop_limit = hop_limit} from rdma_addr_find_l2_eth_by_grh): ibv_rc_pingpong's hop
     * limit 1 goes out as TTL 64, as the reference captures show. A link-local destination keeps the
     * AV's value; 0 would be dropped by the first hop, so it means the route's too. A multicast
     * group is not routed: the AV's hop limit goes out as it is.
     */
    private static int hopLimit(AhAttr av) {
        if (av.dgid().isMulticast()) {
            return av.hopLimit() & 0xFF; // ib_resolve_eth_dmac: a multicast GID maps to its group MAC, no route lookup
        }
        boolean linkLocal = (av.dgid().subnetPrefix() >>> 54) == (0xfe80L >>> 6);
        return linkLocal && av.hopLimit() != 0 ? av.hopLimit() & 0xFF : ROUTE_HOP_LIMIT;
    }

    private static byte[] ipBytes(Gid gid, boolean ipv6) {
        byte[] raw = gid.raw();
        if (ipv6) {
            return raw;
        }
        return new byte[] {raw[12], raw[13], raw[14], raw[15]};
    }
}
