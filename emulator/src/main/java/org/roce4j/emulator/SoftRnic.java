package org.roce4j.emulator;

import org.roce4j.emulator.node.GidTable;
import org.roce4j.emulator.cm.CommunicationManager;
import org.roce4j.emulator.node.Rnic;
import org.roce4j.emulator.verbs.KeySource;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

import org.roce4j.emulator.fabric.Fabric;
import org.roce4j.verbs.Device;
import org.roce4j.verbs.Gid;
import org.roce4j.verbs.Mtu;
import org.roce4j.wire.DropReason;
import org.roce4j.wire.MacAddress;

/**
 * An emulated RoCEv2 RNIC attached to a {@link Fabric}: the entry point for programs and tests that
 * build their own fabric (with a pcap tap, link delay, faults, several nodes).
 *
 * <pre>{@code
 * Fabric fabric = Fabric.deterministic();
 * fabric.tap(Path.of("demo.pcap"));
 * SoftRnic a = SoftRnic.attach(fabric, "rxe0", MacAddress.parse("02:00:00:00:00:01"),
 *         (Inet4Address) InetAddress.getByName("10.0.0.1"));
 * SoftRnic b = SoftRnic.attach(fabric, "rxe1", MacAddress.parse("02:00:00:00:00:02"),
 *         (Inet4Address) InetAddress.getByName("10.0.0.2"));
 * try (Context ctx = a.device().open()) { ... }
 * }</pre>
 *
 * <p>The node has one port (port 1) whose GID table is filled as Linux fills a Soft-RoCE port's:
 * GID 0 is {@code fe80::} with the MAC's modified EUI-64, GID 1 the IPv4 address as
 * {@code ::ffff:a.b.c.d}, GID 2 the IPv6 address when one is given. Frames to other nodes of the
 * same fabric find their MAC by GID, as ARP would.
 *
 * <p>Progress: on a {@linkplain Fabric#deterministic() deterministic} fabric nothing happens until
 * someone drives it; {@code Cq.poll}, {@code CompChannel.getCqEvent} and {@code Context}'s async
 * event calls run the fabric until idle before they look. On a {@linkplain Fabric#threaded() threaded}
 * fabric the event loop does the work and API calls take the fabric lock.
 */
public final class SoftRnic {
    /** The active MTU of a Soft-RoCE port on a 1500-byte Ethernet netdev (1500 - rxe's 80 header bytes → 1024). */
    public static final Mtu DEFAULT_ACTIVE_MTU = Mtu.MTU_1024;

    private final Rnic rnic;

    private SoftRnic(Rnic rnic) {
        this.rnic = rnic;
    }

    /** Attaches a node with an IPv4 address and the default active MTU (1024). */
    public static SoftRnic attach(Fabric fabric, String name, MacAddress mac, Inet4Address ipv4) {
        return builder(fabric).name(name).mac(mac).ipv4(ipv4).attach();
    }

    /** A builder for the less common settings: an IPv6 address, another active MTU. */
    public static Builder builder(Fabric fabric) {
        return new Builder(fabric);
    }

    /** The node's RDMA device, as {@code ibv_get_device_list} would list it. */
    public Device device() {
        return rnic.device;
    }

    /** The RNIC itself, for tests of internals. */
    Rnic rnic() {
        return rnic;
    }

    /** {@return the device this node models: its profile's name, limits and quirks} */
    public DeviceModel model() {
        return rnic.model;
    }

    public String name() {
        return rnic.name;
    }

    public MacAddress mac() {
        return rnic.mac;
    }

    public Fabric fabric() {
        return rnic.fabric;
    }

    /** One counter of the node's datapath. */
    public long counter(RnicCounter counter) {
        return rnic.call(() -> rnic.counter(counter));
    }

    /** Every counter, in {@link RnicCounter} order. */
    public Map<RnicCounter, Long> counters() {
        return rnic.call(() -> {
            Map<RnicCounter, Long> all = new EnumMap<>(RnicCounter.class);
            for (RnicCounter c : RnicCounter.values()) {
                all.put(c, rnic.counter(c));
            }
            return all;
        });
    }

    /**
     * The most frames the link's transmit queue held right after this node sent a turn of READ
     * responses: what a READ being answered keeps waiting in memory, at most
     * {@code Rnic.READ_QUEUE_HIGH} plus a catch-up (see {@code ReadReplies}). 0 on the in-process fabric.
     */
    public long peakReadFramesQueued() {
        return rnic.call(() -> rnic.peakReadFramesQueued());
    }

    /** Frames received that did not parse as RoCEv2 (or failed the ICRC), for one reason. */
    public long dropped(DropReason reason) {
        return rnic.call(() -> rnic.dropped(reason));
    }

    @Override
    public String toString() {
        return "SoftRnic[" + rnic.name + ", " + rnic.mac + ", " + rnic.gids.all() + "]";
    }

    /** Settings of a node to attach. */
    public static final class Builder {
        private final Fabric fabric;
        private String name;
        private MacAddress mac;
        private Inet4Address ipv4;
        private Inet6Address ipv6;
        private Mtu activeMtu = DEFAULT_ACTIVE_MTU;
        private DeviceModel model = DeviceProfile.LINUX.model();
        private List<Gid> gids;
        private int netdevIndex;
        private ExternalLink link;
        private KeySource keys;
        private boolean capNetRaw;

        private Builder(Fabric fabric) {
            this.fabric = Objects.requireNonNull(fabric, "fabric");
        }

        /** The device name, e.g. {@code rxe0}. */
        public Builder name(String deviceName) {
            this.name = deviceName;
            return this;
        }

        public Builder mac(MacAddress address) {
            this.mac = address;
            return this;
        }

        public Builder ipv4(Inet4Address address) {
            this.ipv4 = address;
            return this;
        }

        /** An optional global IPv6 address: GID 2. */
        public Builder ipv6(Inet6Address address) {
            this.ipv6 = address;
            return this;
        }

        /** The port's active MTU: the largest path MTU UD uses (RC/UC use their QP's path MTU). */
        public Builder activeMtu(Mtu mtu) {
            this.activeMtu = Objects.requireNonNull(mtu, "mtu");
            return this;
        }

        /**
         * Whose rules the device follows where devices differ; {@link DeviceProfile#LINUX} by default
         * ({@link DeviceProfile#RXE_6_12}: Linux Soft-RoCE's, e.g. retry_cnt 7 retries forever).
         */
        public Builder profile(DeviceProfile deviceProfile) {
            return profile(deviceProfile.model());
        }

        /**
         * A device no {@link DeviceProfile} entry names: its own limits and departures (e.g. a test's
         * device with room for two QPs).
         */
        public Builder profile(DeviceModel device) {
            this.model = Objects.requireNonNull(device, "profile");
            return this;
        }

        /**
         * The whole GID table, in place of the one made from the MAC and the addresses (a link that
         * takes its GIDs from a host interface): GID 0 should be the link-local {@code fe80::} GID.
         * The node GUID stays the MAC's EUI-64.
         */
        public Builder gids(List<Gid> table) {
            this.gids = List.copyOf(table);
            return this;
        }

        /**
         * The host interface whose addresses the GIDs are ({@code ndev_ifindex} of every GID entry); without
         * it a device has no net device and reports 0, as Linux does for a GID without one.
         */
        public Builder netdevIndex(int ifindex) {
            this.netdevIndex = ifindex;
            return this;
        }

        /**
         * Frames go to {@code link} instead of the fabric's switch (the UDP link); the fabric, which
         * should be {@linkplain Fabric#threaded() threaded}, still gives the lock, clock and timers.
         */
        public Builder link(ExternalLink externalLink) {
            this.link = Objects.requireNonNull(externalLink, "link");
            return this;
        }

        /**
         * Whether the process using the device holds CAP_NET_RAW; false by default, the unprivileged
         * process most programs are. With it, a modify may set a controlled Q_Key (bit 31 set); without
         * it that is EPERM, as Linux's uverbs modify_qp answers a process without the capability.
         */
        public Builder capNetRaw(boolean granted) {
            this.capNetRaw = granted;
            return this;
        }

        /**
         * Where memory keys and QP numbers come from; by default {@link KeySource#forFabric}: counted
         * on a deterministic fabric, from a SecureRandom on a threaded one and on the UDP link.
         */
        Builder keySource(KeySource source) {
            this.keys = Objects.requireNonNull(source, "source");
            return this;
        }

        public SoftRnic attach() {
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(mac, "mac");
            int gidTableLength = model.limits().gidTableLength();
            GidTable table = gids != null ? new GidTable(gids, gidTableLength, netdevIndex)
                    : new GidTable(mac, requireIpv4(), ipv6, gidTableLength);
            KeySource source = keys != null ? keys : KeySource.forFabric(fabric, model.limits().maxQp());
            Rnic rnic = new Rnic(fabric, name, mac, table, activeMtu, model, link, source, capNetRaw);
            CommunicationManager.install(rnic); // QP 1: every node answers CM MADs, as ib_cm does
            return new SoftRnic(rnic);
        }

        private Inet4Address requireIpv4() {
            return Objects.requireNonNull(ipv4, "ipv4");
        }
    }
}
