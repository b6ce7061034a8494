package org.roce4j.emulator.udp;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;

import org.roce4j.emulator.DeviceModel;
import org.roce4j.emulator.DeviceOptions;
import org.roce4j.emulator.DeviceProfile;
import org.roce4j.emulator.ReceivePolling;
import org.roce4j.emulator.SoftRnic;
import org.roce4j.emulator.fabric.Fabric;
import org.roce4j.emulator.fabric.IdleStrategy;
import org.roce4j.emulator.fabric.FaultCounters;
import org.roce4j.emulator.fabric.FaultInjector;
import org.roce4j.emulator.fabric.Faults;
import org.roce4j.verbs.Device;
import org.roce4j.verbs.Gid;

/**
 * An emulated RoCEv2 device on a host address, speaking RoCEv2 on UDP port 4791 — to other
 * roce4j processes, to Linux Soft-RoCE, to real RNICs — as {@code rdma link add rxe0 type rxe
 * netdev eth0} attaches rxe to a netdev.
 *
 * <pre>{@code
 * try (UdpRnic a = UdpRnic.open("rxe0", "127.0.0.2"); UdpRnic b = UdpRnic.open("rxe1", "127.0.0.3")) {
 *     try (Context ctx = a.device().open()) { ... }   // the whole Verbs API; AV dgid ::ffff:127.0.0.3
 * }
 * }</pre>
 *
 * <p>The RNIC is the in-process one ({@link SoftRnic}) on its own {@linkplain Fabric#threaded()
 * threaded} fabric: real clock, event-loop thread, the same ACK timers and retransmission; only
 * its frames go through UDP sockets ({@link UdpLink}) instead of the fabric's switch. Routing is by
 * the AV's destination GID: an IPv4-mapped GID is that IPv4 address, any other an IPv6 address; no
 * ARP. The source GID picks the socket: a GID with no socket (GID 0 {@code fe80::}+EUI-64 on lo,
 * which is no real address there) cannot send, and its frames are counted as
 * {@link UdpLinkCounters#noSocketDrops()}.
 *
 * <p>GID table: see {@link LinkAddresses} — GID 0 the link-local address (or {@code fe80::}+EUI-64),
 * GID 1 the IPv4 address as {@code ::ffff:a.b.c.d}, then IPv6 addresses. On 127.0.0.2: GID 1
 * {@code ::ffff:127.0.0.2}; on {@code ::1}: GID 1 {@code ::1}.
 */
public final class UdpRnic implements AutoCloseable {
    private final Fabric fabric;
    private final UdpLink link;
    private final SoftRnic rnic;
    private final LinkAddresses addresses;

    private UdpRnic(Fabric fabric, UdpLink link, SoftRnic rnic, LinkAddresses addresses) {
        this.fabric = fabric;
        this.link = link;
        this.rnic = rnic;
        this.addresses = addresses;
    }

    /**
     * Opens a device with the default link settings ({@link UdpLinkConfig#DEFAULT}).
     *
     * @param name the device name, e.g. {@code rxe0}
     * @param spec an IPv4/IPv6 literal ({@code 127.0.0.2}, {@code 192.168.77.1}, {@code ::1}) or an
     *     interface name ({@code eth0}, {@code lo}), optionally followed by {@code ?} and the
     *     {@link DeviceOptions} ({@code 192.168.77.1?profile=rxe-6.1})
     * @throws IllegalArgumentException if {@code spec} is neither an address literal nor an interface,
     *     or its options are not understood
     * @throws IOException if the address is not this host's, or a socket cannot bind ADDRESS:4791
     */
    public static UdpRnic open(String name, String spec) throws IOException {
        return open(name, spec, UdpLinkConfig.DEFAULT);
    }

    /** Opens a device with the link settings given (pacing, queue, receive buffer, MTU, transport). */
    public static UdpRnic open(String name, String spec, UdpLinkConfig config) throws IOException {
        return open(name, spec, config, null);
    }

    /**
     * Opens a device that models {@code model} (a {@link DeviceModel} no {@link DeviceProfile} names, such as
     * {@code DeviceProfile.RXE_6_12.model().without(...)}) in place of the spec's {@code profile=}.
     */
    public static UdpRnic open(String name, String spec, UdpLinkConfig config, DeviceModel model) throws IOException {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(config, "config");
        if (name.isBlank()) {
            throw new IllegalArgumentException("device name is empty");
        }
        int query = spec.indexOf('?');
        DeviceOptions options = query < 0 ? DeviceOptions.DEFAULT : DeviceOptions.parse(spec.substring(query + 1));
        LinkAddresses addresses = LinkAddresses.resolve(query < 0 ? spec : spec.substring(0, query));
        Fabric fabric = Fabric.threaded(IdleStrategy.PARK); // Netty's loops need the CPU a spinning loop would take
        UdpLinkConfig linkConfig = options.segmentationOffload() ? config.withSegmentationOffload(true) : config;
        if (options.receivePolling() != ReceivePolling.OFF) {
            linkConfig = linkConfig.withReceivePolling(options.receivePolling());
        }
        UdpLink link = new UdpLink(addresses, linkConfig, fabric.clock(), fabric::locked);
        SoftRnic rnic;
        try {
            SoftRnic.Builder builder = options.applyTo(SoftRnic.builder(fabric));
            if (model != null) {
                builder.profile(model);
            }
            rnic = builder.name(name).mac(addresses.mac()).gids(addresses.gids())
                    .netdevIndex(addresses.interfaceIndex())
                    .activeMtu(config.activeMtu()).link(link).attach();
            link.start();
        } catch (IOException | RuntimeException e) {
            link.close();
            fabric.close();
            throw e;
        }
        return new UdpRnic(fabric, link, rnic, addresses);
    }

    /** The RDMA device, usable with the whole Verbs API. */
    public Device device() {
        return rnic.device();
    }

    /** The address the device was opened on (the first bound address for an interface). */
    public InetAddress address() {
        return addresses.bound().getFirst();
    }

    /** Every address the device has a socket on (ADDRESS:4791). */
    public List<InetAddress> boundAddresses() {
        return addresses.bound();
    }

    /** The port's GID table, in index order. */
    public List<Gid> gids() {
        return addresses.gids();
    }

    /** The interface the device is attached to, e.g. {@code lo}. */
    public String interfaceName() {
        return addresses.interfaceName();
    }

    /**
     * The multicast groups joined on the interface (a socket on GROUP:4791 each) because QPs of the device
     * are attached to them; a group that could not be joined is counted in {@link #multicastJoinFailures()}.
     */
    public List<InetAddress> joinedGroups() {
        return link.joinedGroups();
    }

    /** Groups the link could not join (IPv6 on lo, which has no multicast): their datagrams do not arrive. */
    public long multicastJoinFailures() {
        return link.multicastJoinFailures();
    }

    /** The RNIC: its counters (sent, received, dropped per reason, retransmitted, ...). */
    public SoftRnic rnic() {
        return rnic;
    }

    /** What the link counted: sent, queue drops, ICRC verdicts, ... */
    public UdpLinkCounters linkCounters() {
        return link.counters();
    }

    /**
     * Injects faults into every frame this device sends from now on, like {@code tc qdisc … netem}
     * on its interface, from a seeded {@link Faults} plan: drop, duplicate and corrupt rules are
     * carried out before the socket; delay and reorder rules hold the frame back in real time (the
     * event loop sends it that much later). {@code null} removes the plan. Counters:
     * {@link #faultCounters()}.
     */
    public void faults(Faults plan) {
        faults(plan == null ? null : plan.newInjector());
    }

    /**
     * As {@link #faults(Faults)} with an injector that other devices may share: they then carry
     * out one plan as the nodes of one in-process fabric do — the rules count frames, and draw
     * from the seed, across all of them, in the order their frames reach the injector (which over
     * real threads is the order the scheduler gives). {@code null} removes the plan.
     */
    public void faults(FaultInjector injector) {
        fabric.locked(() -> link.faults(injector));
    }

    /** {@return what the installed fault plan did, or {@link FaultCounters#NONE}} */
    public FaultCounters faultCounters() {
        return fabric.locked(link::faultCounters);
    }

    /** {@code epoll} or {@code nio}: the Netty transport in use. */
    public String transport() {
        return link.transportName();
    }

    /**
     * Writes every frame sent and received to a pcap file (Ethernet) from now on, as full frames
     * with the IP header values actually used: sent frames with DF, Identification 0, source port
     * 4791, the kernel's TOS 0 and TTL 64 and a real UDP checksum; received frames with what the
     * socket tells (addresses, ports, lengths) and the Identification the ICRC check verified or
     * recovered — TTL/hop limit 64, TOS/traffic class/flow label 0 and the source MAC 0 are not
     * known on a socket and are written so. Closed with the device.
     *
     * <p>Bounded by the link's settings: the file stops at {@link UdpLinkConfig#tapMaxBytes()} (1 GiB
     * by default), and with {@link UdpLinkConfig#tapValidFramesOnly()} a received datagram whose ICRC
     * does not verify is left out; {@link #tapCounters()} says what was left out.
     *
     * @throws UncheckedIOException if the file cannot be created
     * @throws IllegalStateException if the device already has a tap
     */
    public void tap(Path pcap) {
        try {
            link.tap(pcap);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create pcap " + pcap, e);
        }
    }

    /** {@return what the tap recorded and what it left out (size limit, invalid frames)} */
    public PcapTapCounters tapCounters() {
        return link.tapCounters();
    }

    /** Closes the sockets, stops the RNIC's event loop and flushes the tap. Twice: no-op. */
    @Override
    public void close() {
        try {
            link.close();
        } finally {
            fabric.close();
        }
    }

    @Override
    public String toString() {
        return "UdpRnic[" + device().name() + " on " + addresses.interfaceName() + " " + addresses.bound()
                + ", " + link.transportName() + "]";
    }
}
