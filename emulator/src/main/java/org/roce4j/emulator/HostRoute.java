package org.roce4j.emulator;

import java.net.InetAddress;
import java.util.Objects;

/**
 * What the host's kernel says of the way to a destination, as Linux's {@code addr.c} reads it for
 * {@code rdma_resolve_addr} ({@code addr_resolve}: the route, the source address it picks, then
 * {@code addr_resolve_neigh}): an {@link ExternalLink} that can read the host's tables answers with
 * one ({@link ExternalLink#route}); the in-process fabric knows every node and needs none.
 *
 * @param kind          what the route is
 * @param destination   the address asked about
 * @param errno         for {@link Kind#NO_ROUTE}: the kernel's errno (101 ENETUNREACH, 113 EHOSTUNREACH, …); else 0
 * @param source        the source address the kernel picks (or the bound one given), null without a route
 * @param nextHop       whose neighbour entry must be valid: the gateway, or the destination when on-link
 * @param interfaceName the interface the route leaves through, or null
 * @param why           for {@link Kind#UNKNOWN}: why the link cannot tell
 */
public record HostRoute(Kind kind, InetAddress destination, int errno, InetAddress source, InetAddress nextHop,
                        String interfaceName, String why) {

    /** What kind of answer the host's tables give. */
    public enum Kind {
        /** The destination is an address of this host: loopback, resolved at once. */
        LOCAL,
        /** The route leaves through an interface without neighbours ({@code IFF_LOOPBACK}, {@code IFF_NOARP}): resolved at once. */
        NO_NEIGHBOUR_NEEDED,
        /** The route leaves through an interface that resolves neighbours (ARP, IPv6 ND): resolved once {@code nextHop}'s entry is valid. */
        NEIGHBOUR,
        /** The kernel has no route: {@code rdma_resolve_addr} fails with {@code errno}. */
        NO_ROUTE,
        /** The link cannot read the host's tables here (not Linux, a table missing): the caller decides as it would without them. */
        UNKNOWN
    }

    public HostRoute {
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(destination, "destination");
    }

    public static HostRoute local(InetAddress destination) {
        return new HostRoute(Kind.LOCAL, destination, 0, destination, destination, null, null);
    }

    public static HostRoute noRoute(InetAddress destination, int errno) {
        return new HostRoute(Kind.NO_ROUTE, destination, errno, null, null, null, null);
    }

    public static HostRoute unknown(InetAddress destination, String why) {
        return new HostRoute(Kind.UNKNOWN, destination, 0, null, null, null, why);
    }
}
