package org.roce4j.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;

import org.roce4j.emulator.SoftRnic;
import org.roce4j.emulator.fabric.Fabric;
import org.roce4j.emulator.fabric.FaultCounters;
import org.roce4j.emulator.fabric.FaultInjector;
import org.roce4j.emulator.fabric.Faults;
import org.roce4j.emulator.udp.UdpLinkConfig;
import org.roce4j.emulator.udp.UdpRnic;
import org.roce4j.verbs.Context;
import org.roce4j.verbs.Mtu;
import org.roce4j.verbs.QpType;
import org.roce4j.wire.MacAddress;

/**
 * A test's emulated fabric and its nodes, as {@link EmulatedFabric} declared them: inject it as a
 * parameter to reach the seed, the nodes, the fault plan, the capture, or to connect QPs.
 */
public final class TestFabric {
    private final FabricSettings settings;
    private final String testName;
    private final ResourceTracker tracker = new ResourceTracker();
    private final CmEventLog cmEvents = new CmEventLog();
    /** The in-process fabric, or null on the UDP link. */
    private final Fabric fabric;
    private final List<UdpRnic> udpRnics = new ArrayList<>();
    private final List<RdmaNode> nodes = new ArrayList<>();
    private final List<Path> captures = new ArrayList<>();
    private final Deque<AutoCloseable> closeAfterTest = new ArrayDeque<>();
    private final SplittableRandom random;
    private final SplittableRandom psnRandom;
    private static final long IOVA_STRIDE = 1L << 30;
    private long nextIova = IOVA_STRIDE;

    private TestFabric(FabricSettings settings, String testName, Path capture) throws IOException {
        this.settings = settings;
        this.testName = testName;
        // The test's and the helpers' random choices are splits of the seed, apart from the fault plan's.
        SplittableRandom root = new SplittableRandom(settings.seed() ^ 0x5DEECE66DL);
        this.random = root.split();
        this.psnRandom = root.split();
        Files.createDirectories(capture.getParent());
        if (settings.link() == Link.UDP_LOOPBACK) {
            fabric = null;
            openUdpNodes(capture);
        } else {
            fabric = settings.link() == Link.THREADED ? Fabric.threaded() : Fabric.deterministic();
            try {
                fabric.tap(capture);
                captures.add(capture);
                if (!settings.faults().isEmpty()) {
                    fabric.faults(settings.faults());
                }
                attachNodes();
            } catch (IOException | RuntimeException e) {
                fabric.close();
                throw e;
            }
        }
    }

    static TestFabric start(FabricSettings settings, String testName, Path capture) {
        try {
            return new TestFabric(settings, testName, capture);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start the test's fabric (capture " + capture + ")", e);
        }
    }

    private void attachNodes() {
        for (int i = 0; i < settings.nodes(); i++) {
            int host = i + 1;
            Inet4Address ipv4 = ipv4(10, 0, 0, host);
            MacAddress mac = MacAddress.parse(String.format(Locale.ROOT, "02:00:00:00:%02x:%02x", host >> 8, host & 0xFF));
            SoftRnic rnic = SoftRnic.builder(fabric).name("rxe" + i).mac(mac).ipv4(ipv4)
                    .activeMtu(settings.mtu()).profile(settings.profile()).attach();
            nodes.add(new RdmaNode(i, tracker.wrap(rnic.device()), ipv4, rnic, tracker, cmEvents));
        }
    }

    private void openUdpNodes(Path capture) throws IOException {
        UdpLinkConfig config = UdpLinkConfig.DEFAULT.withActiveMtu(settings.mtu());
        try {
            for (int i = 0; i < settings.nodes(); i++) {
                Inet4Address ipv4 = ipv4(127, 0, 0, i + 2);
                UdpRnic rnic = UdpRnic.open("rxe" + i, ipv4.getHostAddress() + "?profile=" + settings.profile().id(), config);
                udpRnics.add(rnic);
                // Node 0's capture holds both directions of everything it sends and receives.
                Path file = i == 0 ? capture : capture.resolveSibling(stem(capture) + "." + rnic.device().name() + ".pcap");
                rnic.tap(file);
                captures.add(file);
                nodes.add(new RdmaNode(i, tracker.wrap(rnic.device()), ipv4, rnic.rnic(), tracker, cmEvents));
            }
            if (!settings.faults().isEmpty()) {
                faults(settings.faults());
            }
        } catch (IOException | RuntimeException e) {
            udpRnics.forEach(UdpRnic::close);
            throw e;
        }
    }

    private static String stem(Path file) {
        String name = file.getFileName().toString();
        return name.endsWith(".pcap") ? name.substring(0, name.length() - 5) : name;
    }

    private static Inet4Address ipv4(int a, int b, int c, int d) {
        try {
            return (Inet4Address) InetAddress.getByAddress(new byte[] {(byte) a, (byte) b, (byte) c, (byte) d});
        } catch (UnknownHostException impossible) {
            throw new AssertionError(impossible);
        }
    }

    /** {@return the seed of this test's run: {@code -Droce4j.seed=} this value replays it} */
    public long seed() {
        return settings.seed();
    }

    /**
     * {@return a random source for the test's own choices (sizes, data), split from the seed}: the
     * same seed gives the same values, so a failure replays.
     */
    public SplittableRandom random() {
        return random;
    }

    /** {@return the nodes, in order: {@code rxe0}, {@code rxe1}, …} */
    public List<RdmaNode> nodes() {
        return List.copyOf(nodes);
    }

    /**
     * {@return node {@code index}}
     *
     * @param index the node's place, from 0
     */
    public RdmaNode node(int index) {
        return nodes.get(index);
    }

    /** {@return the ports' active MTU} */
    public Mtu mtu() {
        return settings.mtu();
    }

    /** {@return how frames travel between the nodes} */
    public Link link() {
        return settings.link();
    }

    /**
     * {@return the in-process fabric: to drive it ({@code step}, {@code runFor}), read its counters
     * or change its faults}
     *
     * @throws IllegalStateException on the UDP link, which has no shared fabric
     */
    public Fabric fabric() {
        if (fabric == null) {
            throw new IllegalStateException("the UDP link has no in-process fabric");
        }
        return fabric;
    }

    /**
     * Replaces the fault plan from now on. Build it from {@link #seededFaults()} so that it replays
     * with the test's seed. On the UDP link one injector carries it out for every node, before the
     * node's socket, so that rules count frames across the nodes as on an in-process fabric.
     *
     * @param plan the new plan
     */
    public void faults(Faults plan) {
        if (fabric != null) {
            fabric.faults(plan);
            return;
        }
        FaultInjector injector = plan.newInjector();
        udpRnics.forEach(rnic -> rnic.faults(injector));
    }

    /** {@return what the fault plan did so far, on any link: frames dropped, duplicated, corrupted, delayed, reordered} */
    public FaultCounters faultCounters() {
        if (fabric != null) {
            return fabric.faultCounters();
        }
        return udpRnics.getFirst().faultCounters(); // every node's link shares one injector
    }

    /** {@return an empty fault plan seeded with the test's seed} */
    public Faults seededFaults() {
        return Faults.seeded(settings.seed());
    }

    /** {@return where the test's frames are captured (node 0's capture on the UDP link)} */
    public Path pcap() {
        return captures.getFirst();
    }

    /**
     * Connects a QP on node {@code a} to a QP on node {@code b} (RC, UC or UD), each with its own
     * PD, CQ and a registered buffer of {@link QpPair#DEFAULT_BUFFER_BYTES}: the exchange of QPN,
     * PSN, GID and rkey done. Closed after the test.
     *
     * @param type RC, UC or UD
     * @param a    one side
     * @param b    the other side
     * @return the connected pair
     */
    public QpPair connect(QpType type, Context a, Context b) {
        return QpPair.builder(type).mtu(settings.mtu()).connect(a, b);
    }

    /** The test's name, as reports print it. */
    String testName() {
        return testName;
    }

    FabricSettings settings() {
        return settings;
    }

    /** The rdma_cm events the nodes' hosts raised, for the failure report. */
    CmEventLog cmEvents() {
        return cmEvents;
    }

    ResourceTracker tracker() {
        return tracker;
    }

    /** First PSNs for {@link QpPair}: 24-bit, from the seed. */
    synchronized int nextPsn() {
        return psnRandom.nextInt(1 << 24);
    }

    /**
     * {@return an I/O virtual address for a buffer the testkit registers}: 1 GiB apart from
     * 0x40000000, the same on every run of the test.
     *
     * @param length the buffer's length
     */
    synchronized long nextIova(long length) {
        long iova = nextIova;
        nextIova += Math.max(IOVA_STRIDE, (length + IOVA_STRIDE - 1) / IOVA_STRIDE * IOVA_STRIDE);
        return iova;
    }

    /** Registers something the testkit made for the test, closed (newest first) before the leak check. */
    synchronized void closeAfterTest(AutoCloseable resource) {
        closeAfterTest.push(resource);
    }

    /** Closes what {@link #closeAfterTest} registered. {@return the failures} */
    List<Throwable> closeHelpers() {
        List<Throwable> failures = new ArrayList<>();
        while (true) {
            AutoCloseable next;
            synchronized (this) {
                next = closeAfterTest.poll();
            }
            if (next == null) {
                return failures;
            }
            try {
                next.close();
            } catch (Exception e) {
                failures.add(e);
            }
        }
    }

    /** Stops the fabric or the UDP devices and flushes the captures. */
    void shutDown() {
        if (fabric != null) {
            fabric.close();
        }
        udpRnics.forEach(UdpRnic::close);
    }

    /** {@return every capture file of the test} */
    List<Path> captures() {
        return List.copyOf(captures);
    }
}
