package org.roce4j.emulator.cm;

import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import java.util.random.RandomGenerator;
import org.roce4j.cm.CmEventType;
import org.roce4j.cm.ConnParam;
import org.roce4j.cm.EventChannel;
import org.roce4j.cm.PortSpace;
import org.roce4j.emulator.HostRoute;
import org.roce4j.emulator.fabric.Fabric;
import org.roce4j.emulator.node.Rnic;
import org.roce4j.cm.UdParam;
import org.roce4j.verbs.AhAttr;
import org.roce4j.verbs.Context;
import org.roce4j.verbs.Gid;
import org.roce4j.wire.mad.CmaHeader;
import org.roce4j.wire.mad.ConnectRequest;
import org.roce4j.wire.mad.ServiceId;
import org.roce4j.wire.mad.SidrRequest;
import org.roce4j.wire.mad.SidrStatus;

/**
 * The host rdma_cm runs on, for the emulator: a set of emulated devices that share port bindings
 * (one network namespace), as the RDMA devices of one Linux machine do. It picks devices for
 * addresses ({@code cma_acquire_dev} by address, addr.c's route lookup), opens the one device
 * context each device gets ({@code id->verbs}), and hands the REQs its devices' CMs receive to the
 * listening ids ({@code cma_ib_req_handler}, {@code cma_find_listener}). A device belongs to one host.
 */
public final class RdmaCmHost implements CommunicationManager.RequestListeners {
    private static final System.Logger LOG = System.getLogger(RdmaCmHost.class.getName());
    /** Why a link could not read the host's tables, each said once. */
    private static final Set<String> UNKNOWN_ROUTES_TOLD = ConcurrentHashMap.newKeySet();
    private final List<Rnic> nodes;
    final PortBindings bindings;
    private final Map<Rnic, Context> contexts = new ConcurrentHashMap<>();
    private final List<Fabric> fabrics = new ArrayList<>();
    private volatile Consumer<RaisedEvent> eventRecorder;

    private RdmaCmHost(List<Rnic> nodes) {
        this.nodes = List.copyOf(nodes);
        boolean deterministic = nodes.stream().allMatch(Rnic::isDeterministic);
        RandomGenerator random = deterministic ? new SplittableRandom(nodes.isEmpty() ? 0 : nodes.getFirst().nodeGuid)
                : new SecureRandom();
        this.bindings = new PortBindings(random);
        for (Rnic node : nodes) {
            if (!fabrics.contains(node.fabric)) {
                fabrics.add(node.fabric);
            }
        }
    }

    /**
     * {@return a host over these devices}
     *
     * @throws IllegalStateException when a device belongs to another host already
     */
    public static RdmaCmHost over(List<Rnic> nodes) {
        RdmaCmHost host = new RdmaCmHost(nodes);
        for (Rnic node : nodes) {
            CommunicationManager.of(node).takeListeners(host);
        }
        return host;
    }

    /** {@return a new event channel on this host: {@code rdma_create_event_channel}} */
    public EventChannel createEventChannel() {
        return new EmulatedEventChannel(this);
    }

    /**
     * What the host's CMs hold right now, for leak checks: connections in any state (timewait
     * included), timers armed, ports bound, and MADs that matched no connection so far.
     */
    public record Footprint(int connections, int timers, int boundPorts, long staleMads) {
    }

    /** {@return what the CMs of this host's devices hold now} */
    public Footprint footprint() {
        int connections = 0;
        int timers = 0;
        long stale = 0;
        for (Rnic node : nodes) {
            CommunicationManager cm = CommunicationManager.of(node);
            int[] counts = node.call(() -> new int[] {cm.connections(), cm.liveTimers()});
            connections += counts[0];
            timers += counts[1];
            stale += node.call(cm::staleMads);
        }
        return new Footprint(connections, timers, bindings.boundPorts(), stale);
    }

    /**
     * A CM event as this host raised it, before the application takes it — for a test's log.
     *
     * @param atNanos the fabric's clock when it was raised (virtual time on a deterministic fabric)
     * @param type    what happened
     * @param local   the id's local address and port
     * @param peer    the id's peer, or null before address resolution
     * @param status  the event's status
     */
    public record RaisedEvent(long atNanos, CmEventType type, InetSocketAddress local, InetSocketAddress peer,
                              int status) {
    }

    /**
     * Hands every event this host raises from now on to {@code recorder}, in the order raised. It is
     * called on the thread that raises the event, mostly holding a fabric lock: it should only record.
     * A recorder that throws is dropped, so that nothing throws out of the RNIC's loop.
     *
     * @param recorder where events go; null stops recording
     */
    public void recordEvents(Consumer<RaisedEvent> recorder) {
        eventRecorder = recorder;
    }

    /** Under the id's lock, as its event is posted. */
    void raised(CmEventType type, EmulatedCmId id, int status) {
        Consumer<RaisedEvent> recorder = eventRecorder;
        if (recorder == null) {
            return;
        }
        long now = id.rnic != null ? id.rnic.clock.nanoTime()
                : fabrics.isEmpty() ? 0 : fabrics.getFirst().clock().nanoTime();
        try {
            recorder.accept(new RaisedEvent(now, type, id.localAddressHeld(), id.peer, status));
        } catch (RuntimeException e) {
            eventRecorder = null;
        }
    }

    List<Fabric> fabrics() {
        return fabrics;
    }

    /**
     * The device's context, opened once and owned by the host (librdmacm's {@code cma_dev->verbs}).
     * Opened outside any lock (opening takes the fabric lock, and callers may hold it), kept under
     * the map's own: a context opened twice by a race is closed again.
     */
    Context context(Rnic device) {
        Context known = contexts.get(device);
        if (known != null) {
            return known;
        }
        Context opened = device.device.open();
        Context kept = contexts.putIfAbsent(device, opened);
        if (kept != null) {
            opened.close();
            return kept;
        }
        return opened;
    }

    // ---- addresses ---------------------------------------------------------------------------

    /** {@return the device with {@code address} among its GIDs, or null} */
    Rnic deviceOwning(InetAddress address) {
        Gid gid = Gid.of(address);
        for (Rnic node : nodes) {
            if (node.gids.all().contains(gid)) {
                return node;
            }
        }
        return null;
    }

    /**
     * What the host's kernel says of the way to a destination no device of this host owns, asked of
     * a device on a link — {@code device} if it is on one, else the first that is. Null when the
     * fabric decides instead: no device on a link, the destination is an address of this machine
     * (loopback: resolved at once, as before), or the link cannot read the tables here (said once
     * in the log, and the destination is taken as reachable, as before).
     *
     * @param source the bound id's source address, or null
     */
    HostRoute linkRoute(InetAddress destination, Rnic device, InetAddress source) {
        if (deviceOwning(destination) != null) {
            return null;
        }
        Rnic asked = device;
        if (asked == null) {
            asked = nodes.stream().filter(node -> node.link() != null).findFirst().orElse(null);
        }
        if (asked == null || asked.link() == null) {
            return null;
        }
        HostRoute route = asked.link().route(destination, source);
        return switch (route.kind()) {
            case LOCAL -> null;
            case UNKNOWN -> {
                if (UNKNOWN_ROUTES_TOLD.add(route.why())) {
                    LOG.log(System.Logger.Level.WARNING, "rdma_resolve_addr over " + asked.device.name()
                            + " without the host's tables (" + route.why() + "): every destination counts as reachable");
                }
                yield null;
            }
            default -> route;
        };
    }

    /**
     * The device a destination is reached from: the one that owns it (a local address routes to
     * loopback), else the first whose fabric has a node with it, else the first with an address of
     * its IP version (the neighbour will not answer); null when no device has that IP version.
     */
    Rnic route(InetAddress destination) {
        Rnic owner = deviceOwning(destination);
        if (owner != null) {
            return owner;
        }
        Gid gid = Gid.of(destination);
        Rnic fallback = null;
        for (Rnic node : nodes) {
            if (!hasVersion(node, destination)) {
                continue;
            }
            if (node.call(() -> node.canReach(gid))) {
                return node;
            }
            if (fallback == null) {
                fallback = node;
            }
        }
        return fallback;
    }

    private static boolean hasVersion(Rnic node, InetAddress destination) {
        boolean v4 = destination instanceof Inet4Address;
        for (Gid gid : node.gids.all()) {
            if (gid.isIpv4Mapped() == v4 && (v4 || !isLinkLocal(gid) || destination.isLinkLocalAddress())) {
                return true;
            }
        }
        return false;
    }

    private static boolean isLinkLocal(Gid gid) {
        return (gid.subnetPrefix() >>> 48) == 0xfe80;
    }

    /** The device's address to send to {@code destination} from: its IPv4 for IPv4, its IPv6 GID of the same scope otherwise. */
    static InetAddress addressFor(Rnic device, InetAddress destination) {
        boolean v4 = destination instanceof Inet4Address;
        for (Gid gid : device.gids.all()) {
            if (gid.isIpv4Mapped() == v4 && (v4 || isLinkLocal(gid) == destination.isLinkLocalAddress())) {
                return addressOf(gid);
            }
        }
        return addressOf(device.gids.get(0));
    }

    /** The GID index of {@code local} on {@code device}. */
    static int gidIndex(Rnic device, InetAddress local) {
        List<Gid> all = device.gids.all();
        int index = local == null ? -1 : all.indexOf(Gid.of(local));
        return Math.max(index, 0);
    }

    static InetAddress addressOf(Gid gid) {
        return gid.toInetAddress();
    }

    static InetAddress wildcard(InetSocketAddress peer) {
        try {
            return peer != null && peer.getAddress() instanceof Inet6Address
                    ? InetAddress.getByName("::") : InetAddress.getByName("0.0.0.0");
        } catch (UnknownHostException impossible) {
            throw new AssertionError(impossible);
        }
    }

    // ---- incoming requests (under the receiving device's fabric lock) --------------------------

    /** What a REQ or SIDR_REQ asks for, as cma_ib_req_handler reads it: the port space, port and rdma_cm header. */
    private record Incoming(PortSpace space, int port, CmaHeader header, InetAddress destination, byte[] consumerData) {
        static Incoming of(long serviceId, byte[] privateData, CmConnection connection) {
            Optional<PortSpace> space = ServiceId.isRdmaCm(serviceId) ? PortSpace.of(ServiceId.portSpace(serviceId))
                    : Optional.empty();
            if (space.isEmpty()) {
                return null;
            }
            boolean ib = space.get() == PortSpace.IB;
            CmaHeader header = ib ? null : CmaHeader.decode(privateData, 0, privateData.length).orElse(null);
            InetAddress destination = header != null ? header.destination() : addressOf(connection.localGid);
            byte[] consumer = java.util.Arrays.copyOfRange(privateData, ib ? 0 : CmaHeader.LENGTH, privateData.length);
            return new Incoming(space.get(), ServiceId.port(serviceId), header, destination, consumer);
        }
    }

    /**
     * cma_ib_req_handler: ib_cm listens on a service ID for each id listening on its port in its
     * space, on the listener's device or — wildcard — on all. No such listener: null (REJ 8, invalid
     * service ID). A listener whose address does not match refuses with reason 28 (cm_destroy_id of
     * a REQ received); a full backlog drops the REQ unanswered (−ENOMEM), and the peer retries.
     */
    @Override
    public CmUser connectRequest(CmConnection connection, ConnectRequest request) {
        Incoming in = Incoming.of(request.serviceId(), request.privateData(), connection);
        EmulatedCmId listener = in == null ? null : listenerFor(in, connection);
        if (listener == null) {
            return null;
        }
        if (listener == NO_ADDRESS) {
            // cma_ib_req_handler: no listener for this address (−EINVAL) — ib_cm rejects, reason 28.
            connection.sendRej(CmConnection.REJ_CONSUMER_DEFINED, null);
            return null;
        }
        if (listener.pendingRequests.get() >= listener.backlog) {
            // ucma_event_handler: no backlog left is −ENOMEM, and cm_destroy_id drops such a REQ
            // without a REJ so that the peer's retry may find room.
            connection.abandonRequest();
            return null;
        }
        EmulatedCmId child = newConnectionId(listener, connection, in);
        // cma_set_req_event_data: the peer's view turned round.
        child.post(CmEventType.CONNECT_REQUEST, 0, new ConnParam(in.consumerData(), request.initiatorDepth(),
                request.responderResources(), request.endToEndFlowControl() ? 1 : 0, request.retryCount(),
                request.rnrRetryCount(), request.srq(), request.localQpn()));
        return child;
    }

    /**
     * cm_sidr_req_handler → cma_ib_req_handler for a UD id: the listener gets CONNECT_REQUEST with
     * the datagram parameters; nobody listening is a SIDR_REP "unsupported"; a listener that cannot
     * take it (wrong address, backlog full) is cm_destroy_id's SIDR_REP "reject".
     */
    @Override
    public CmUser sidrRequest(CmConnection connection, SidrRequest request) {
        Incoming in = Incoming.of(request.serviceId(), request.privateData(), connection);
        EmulatedCmId listener = in == null ? null : listenerFor(in, connection);
        if (listener == null) {
            return null;
        }
        if (listener == NO_ADDRESS || listener.pendingRequests.get() >= listener.backlog) {
            Sidr.sendReply(connection, SidrStatus.REJECT, 0, 0, null);
            return null;
        }
        EmulatedCmId child = newConnectionId(listener, connection, in);
        AhAttr back = AhAttr.of(connection.remoteGid, child.sgidIndex, 1);
        child.postUd(CmEventType.CONNECT_REQUEST, 0, new UdParam(in.consumerData(), back, 0, 0));
        return child;
    }

    /** A stand-in for "a listener on the service ID, but none for this address". */
    private static final EmulatedCmId NO_ADDRESS = new EmulatedCmId(null, null, PortSpace.TCP, null);

    private EmulatedCmId listenerFor(Incoming in, CmConnection connection) {
        Rnic device = connection.cm.rnic;
        boolean anyOnService = false;
        for (EmulatedCmId holder : bindings.holders(in.space(), in.port())) {
            if (holder.state != RdmaCmState.LISTEN || (holder.rnic != null && holder.rnic != device)) {
                continue;
            }
            anyOnService = true;
            if ((in.header() != null || in.space() == PortSpace.IB)
                    && (holder.boundAddress == null || holder.boundAddress.equals(in.destination()))) {
                return holder;
            }
        }
        return anyOnService ? NO_ADDRESS : null;
    }

    private EmulatedCmId newConnectionId(EmulatedCmId listener, CmConnection connection, Incoming in) {
        EmulatedCmId child = new EmulatedCmId(this, listener.channel, in.space(), listener.context());
        listener.channel.adopt(child);
        child.listener = listener;
        child.rnic = connection.cm.rnic;
        child.localGid = connection.localGid;
        child.remoteGid = connection.remoteGid;
        child.sgidIndex = Math.max(child.rnic.gids.all().indexOf(connection.localGid), 0);
        child.boundAddress = in.destination();
        child.boundPort = in.port();
        child.peer = in.header() != null ? new InetSocketAddress(in.header().source(), in.header().sourcePort())
                : new InetSocketAddress(addressOf(connection.remoteGid), 0);
        child.connection = connection;
        child.state = RdmaCmState.CONNECT;
        listener.pendingRequests.incrementAndGet();
        return child;
    }
}
