package org.roce4j.emulator.cm;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Objects;
import org.roce4j.cm.CmEventType;
import org.roce4j.emulator.HostRoute;
import org.roce4j.emulator.node.Rnic;
import org.roce4j.verbs.Errno;
import org.roce4j.verbs.Gid;
import org.roce4j.verbs.VerbsException;

/**
 * An id's addresses: {@code rdma_bind_addr}, {@code rdma_resolve_addr}, {@code rdma_resolve_route}
 * and {@code rdma_listen} as cma.c and addr.c do them, with the JVM as the host whose devices are
 * the {@link RdmaCmHost}'s nodes.
 */
final class CmIdAddressing {
    /** ucma.c {@code max_backlog}: a listen backlog outside 1..1024 means 1024. */
    static final int MAX_BACKLOG = 1024;
    /** −ENETUNREACH: no device of the host has an address of the destination's IP version (no route). */
    static final int ENETUNREACH = -101;

    private final EmulatedCmId id;

    CmIdAddressing(EmulatedCmId id) {
        this.id = id;
    }

    /** rdma_bind_addr: a specific address binds the device that owns it; port 0 is an ephemeral port. */
    void bind(InetSocketAddress address) {
        Objects.requireNonNull(address, "address");
        InetAddress ip = address.getAddress();
        if (ip == null) {
            throw new VerbsException(Errno.EINVAL, "rdma_bind_addr: unresolved address " + address);
        }
        synchronized (id.host) {
            id.checkState("rdma_bind_addr", RdmaCmState.IDLE);
            Rnic device = null;
            if (!ip.isAnyLocalAddress()) {
                device = id.host.deviceOwning(ip);
                if (device == null) {
                    throw new VerbsException(Errno.EADDRNOTAVAIL, "rdma_bind_addr: no RDMA device has " + ip.getHostAddress());
                }
            }
            bindTo(device, ip.isAnyLocalAddress() ? null : ip, address.getPort());
        }
    }

    private void bindTo(Rnic device, InetAddress ip, int port) {
        id.boundPort = id.host.bindings.bind(id, id.space, ip, port);
        id.bound = true;
        id.boundAddress = ip;
        if (device != null) {
            attach(device, ip);
        }
        id.state = RdmaCmState.ADDR_BOUND;
    }

    /** The id now belongs to {@code device}, sending from its GID for {@code local}. */
    private void attach(Rnic device, InetAddress local) {
        id.sgidIndex = RdmaCmHost.gidIndex(device, local);
        id.localGid = device.gids.get(id.sgidIndex);
        id.rnic = device;
    }

    /**
     * rdma_resolve_addr (cma.c, addr.c rdma_resolve_ip): picks the device, binds if unbound, and
     * reports ADDR_RESOLVED — or, when no node of the device's fabric owns the destination (no
     * neighbour answers), ADDR_ERROR −ETIMEDOUT once {@code timeout} has passed, as addr.c's
     * {@code process_one_req} gives up; −ENETUNREACH at once when nothing routes that IP version.
     */
    void resolveAddr(InetSocketAddress source, InetSocketAddress destination, Duration timeout) {
        Objects.requireNonNull(destination, "destination");
        InetAddress target = destination.getAddress();
        if (target == null) {
            throw new VerbsException(Errno.EINVAL, "rdma_resolve_addr: unresolved destination " + destination);
        }
        if (source != null && id.state == RdmaCmState.IDLE) {
            bind(source);
        }
        synchronized (id.host) {
            id.checkState("rdma_resolve_addr", RdmaCmState.IDLE, RdmaCmState.ADDR_BOUND);
            HostRoute hostRoute = id.host.linkRoute(target, id.rnic, boundSource(target));
            if (hostRoute != null) {
                resolveOverLink(destination, hostRoute, timeout);
                return;
            }
            Gid destinationGid = Gid.of(target);
            Rnic device = id.rnic;
            if (device == null) {
                device = id.host.route(target);
            }
            if (device == null) {
                // No device has an address of this IP version: no route.
                if (!id.bound) {
                    bindTo(null, null, 0);
                }
                id.state = RdmaCmState.ADDR_BOUND;
                id.peer = destination;
                id.post(CmEventType.ADDR_ERROR, ENETUNREACH, null);
                return;
            }
            InetAddress local = RdmaCmHost.addressFor(device, target);
            if (!id.bound) {
                bindTo(device, local, 0);
            } else if (id.rnic == null) {
                attach(device, local);
            }
            id.peer = destination;
            id.remoteGid = destinationGid;
            id.state = RdmaCmState.ADDR_QUERY;
            Rnic chosen = device;
            chosen.run(() -> {
                if (chosen.canReach(destinationGid) || id.host.deviceOwning(target) != null) {
                    id.state = RdmaCmState.ADDR_RESOLVED;
                    id.post(CmEventType.ADDR_RESOLVED, 0, null);
                } else {
                    CommunicationManager cm = CommunicationManager.of(chosen);
                    id.resolutionTimer = cm.schedule(timeout.toNanos(), () -> {
                        id.resolutionTimer = null;
                        if (id.state == RdmaCmState.ADDR_QUERY) {
                            id.state = RdmaCmState.ADDR_BOUND;
                            id.post(CmEventType.ADDR_ERROR, CmTiming.ETIMEDOUT, null);
                        }
                    });
                }
            });
        }
    }

    /** The source a bound id sends from (addr4_resolve's {@code fl4.saddr}); null lets the kernel pick. */
    private InetAddress boundSource(InetAddress target) {
        if (id.rnic == null) {
            return null;
        }
        return id.boundAddress != null ? id.boundAddress : RdmaCmHost.addressFor(id.rnic, target);
    }

    /**
     * rdma_resolve_addr through a device on a link, by what the host's kernel says (addr.c
     * {@code addr_resolve}): no route is the call's own error ({@code rdma_resolve_ip} returns
     * {@code ip_route_output_key}'s errno, and cma.c puts the id back to ADDR_BOUND); a route whose
     * source address no device of this host has is ADDR_ERROR −ENODEV (cma.c {@code addr_handler}:
     * {@code cma_acquire_dev_by_src_ip} finds none); an interface without neighbours resolves at once;
     * otherwise the id waits for the next hop's neighbour entry ({@link NeighbourWait}).
     */
    private void resolveOverLink(InetSocketAddress destination, HostRoute route, Duration timeout) {
        InetAddress target = destination.getAddress();
        if (route.kind() == HostRoute.Kind.NO_ROUTE) {
            if (!id.bound) {
                bindTo(null, null, 0); // cma.c resolve_prepare_src binds before rdma_resolve_ip fails
            }
            id.state = RdmaCmState.ADDR_BOUND;
            Errno errno = Errno.of(route.errno());
            throw new VerbsException(errno, "rdma_resolve_addr: no route to " + target.getHostAddress()
                    + " (" + errno.text() + ")");
        }
        Rnic device = id.rnic != null ? id.rnic : id.host.deviceOwning(route.source());
        id.peer = destination;
        if (device == null) {
            if (!id.bound) {
                bindTo(null, null, 0);
            }
            id.state = RdmaCmState.ADDR_BOUND;
            id.post(CmEventType.ADDR_ERROR, -Errno.ENODEV.number(), null);
            return;
        }
        if (!id.bound) {
            bindTo(device, route.source(), 0);
        } else if (id.rnic == null) {
            attach(device, route.source());
        }
        id.remoteGid = Gid.of(target);
        id.state = RdmaCmState.ADDR_QUERY;
        if (route.kind() == HostRoute.Kind.NEIGHBOUR && !target.isMulticastAddress()) {
            NeighbourWait.start(id, device, route, timeout);
            return;
        }
        device.run(() -> {
            // addr.c addr_resolve_neigh: IFF_LOOPBACK and IFF_NOARP interfaces have no neighbour to wait for,
            // nor has a multicast group (arp_mc_map: its neighbour entry is NUD_NOARP).
            id.state = RdmaCmState.ADDR_RESOLVED;
            id.post(CmEventType.ADDR_RESOLVED, 0, null);
        });
    }

    /** rdma_resolve_route: on RoCE the route is the resolved address's (cma_resolve_iboe_route). */
    void resolveRoute() {
        id.lockedRun(() -> {
            id.checkState("rdma_resolve_route", RdmaCmState.ADDR_RESOLVED);
            id.state = RdmaCmState.ROUTE_RESOLVED;
            id.post(CmEventType.ROUTE_RESOLVED, 0, null);
        });
    }

    /** rdma_listen: an unbound id binds the wildcard and an ephemeral port first (cma_bind_any). */
    void listen(int backlog) {
        synchronized (id.host) {
            if (id.state == RdmaCmState.IDLE) {
                bindTo(null, null, 0);
            }
            id.lockedRun(() -> {
                id.checkState("rdma_listen", RdmaCmState.ADDR_BOUND);
                id.backlog = backlog > 0 && backlog < MAX_BACKLOG ? backlog : MAX_BACKLOG;
                id.state = RdmaCmState.LISTEN;
            });
        }
    }
}
