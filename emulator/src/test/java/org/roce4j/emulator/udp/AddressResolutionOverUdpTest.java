package org.roce4j.emulator.udp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.StandardProtocolFamily;
import java.nio.channels.DatagramChannel;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.roce4j.cm.CmEvent;
import org.roce4j.cm.CmEventType;
import org.roce4j.cm.CmId;
import org.roce4j.cm.EventChannel;
import org.roce4j.cm.PortSpace;
import org.roce4j.emulator.EmulatedCm;
import org.roce4j.testing.RequiredInCi;
import org.roce4j.verbs.Errno;
import org.roce4j.verbs.VerbsException;

/**
 * rdma_resolve_addr over the UDP link by the host's own routing and neighbour tables, as addr.c and
 * cma.c do it: real UDP devices, the real kernel's tables, and subnets the test builds
 * ({@link TestSubnet}: a veth pair with its far end in a network namespace).
 */
class AddressResolutionOverUdpTest {
    private static final Duration RESOLVE_TIMEOUT = Duration.ofMillis(1500);
    private static final Duration PATIENCE = Duration.ofSeconds(10);
    private static TestSubnet subnet;

    @BeforeAll
    static void buildSubnet() {
        subnet = TestSubnet.create();
    }

    @AfterAll
    static void removeSubnet() {
        if (subnet != null) {
            subnet.close();
        }
    }

    private static InetAddress address(String literal) {
        return InetAddress.ofLiteral(literal);
    }

    /** Resolves {@code destination} from a device on {@code deviceAddress}; {@return the event and when it came} */
    private record Outcome(CmEvent event, long millis) {
    }

    private static Outcome resolve(String deviceAddress, InetAddress destination) throws IOException {
        try (UdpRnic device = UdpRnic.open("rxe0", deviceAddress)) {
            EventChannel channel = EmulatedCm.of(device.rnic()).createEventChannel();
            CmId id = channel.createId(PortSpace.TCP);
            long start = System.nanoTime();
            id.resolveAddr(null, new InetSocketAddress(destination, 7471), RESOLVE_TIMEOUT);
            CmEvent event = channel.getEvent(PATIENCE).orElseThrow(() -> new AssertionError("no event"));
            long millis = (System.nanoTime() - start) / 1_000_000;
            event.ack();
            id.close();
            return new Outcome(event, millis);
        }
    }

    @Test
    @DisplayName("addr.c addr_resolve_neigh: an address of this host (the loopback route) resolves at once, no neighbour to wait for")
    void anAddressOfThisHostResolvesAtOnce() throws Exception {
        Outcome loopback = resolve("127.0.0.3", address("127.0.0.2"));
        assertThat(loopback.event().type()).isEqualTo(CmEventType.ADDR_RESOLVED);
        assertThat(loopback.millis()).isLessThan(RESOLVE_TIMEOUT.toMillis() / 2);

        Optional<InetAddress> own = NetworkInterface.networkInterfaces()
                .flatMap(NetworkInterface::inetAddresses)
                .filter(a -> a instanceof Inet4Address && !a.isLoopbackAddress())
                .filter(a -> !a.getHostAddress().equals(subnet.ipv4Near()))
                .findFirst();
        RequiredInCi.require(own.isPresent(), "an IPv4 address of this host besides loopback");
        Outcome host = resolve("127.0.0.3", own.get());
        assertThat(host.event().type()).as("resolving %s", own.get()).isEqualTo(CmEventType.ADDR_RESOLVED);
        assertThat(host.millis()).isLessThan(RESOLVE_TIMEOUT.toMillis() / 2);
    }

    @Test
    @DisplayName("cma.c rdma_resolve_addr: with no route (an unreachable route) the call itself fails with the kernel's "
            + "errno, EHOSTUNREACH, and the id stays ADDR_BOUND")
    void noRouteFailsTheCallWithTheKernelsErrno() throws Exception {
        try (UdpRnic device = UdpRnic.open("rxe0", "127.0.0.3")) {
            EventChannel channel = EmulatedCm.of(device.rnic()).createEventChannel();
            CmId id = channel.createId(PortSpace.TCP);
            InetSocketAddress unrouted = new InetSocketAddress(address(subnet.unrouted()), 7471);
            assertThatThrownBy(() -> id.resolveAddr(null, unrouted, RESOLVE_TIMEOUT))
                    .isInstanceOfSatisfying(VerbsException.class,
                            e -> assertThat(e.errno()).isEqualTo(Errno.EHOSTUNREACH));
            // ADDR_BOUND, not ADDR_QUERY: the next call is judged again (EHOSTUNREACH), not refused as EINVAL.
            assertThatThrownBy(() -> id.resolveAddr(null, unrouted, RESOLVE_TIMEOUT))
                    .isInstanceOfSatisfying(VerbsException.class,
                            e -> assertThat(e.errno()).isEqualTo(Errno.EHOSTUNREACH));
            assertThat(channel.pollEvent()).isEmpty();
            id.close();
        }
    }

    @Test
    @DisplayName("cma.c addr_handler: a route leaving by a source address no device of the host has is ADDR_ERROR −ENODEV "
            + "(cma_acquire_dev_by_src_ip finds none)")
    void aRouteFromAnotherInterfacesAddressIsEnodev() throws Exception {
        InetAddress elsewhere = address("198.18." + 255 + ".7"); // not the test subnet: the default route's way
        try (DatagramChannel probe = DatagramChannel.open(StandardProtocolFamily.INET)) {
            probe.connect(new InetSocketAddress(elsewhere, 9));
        } catch (IOException e) {
            RequiredInCi.require(false, "an IPv4 route (a default route) beyond loopback: " + e.getMessage());
        }
        Outcome outcome = resolve("127.0.0.3", elsewhere);
        assertThat(outcome.event().type()).isEqualTo(CmEventType.ADDR_ERROR);
        assertThat(outcome.event().status()).isEqualTo(-Errno.ENODEV.number());
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"IPv4", "IPv6"})
    @DisplayName("addr.c process_one_req: an address on a connected subnet that nobody owns (ARP, neighbour "
            + "solicitations unanswered) ends ADDR_ERROR −ETIMEDOUT once the caller's timeout has passed")
    void unansweredNeighbourTimesOut(String version) throws Exception {
        boolean v4 = version.equals("IPv4");
        Outcome outcome = resolve(v4 ? subnet.ipv4Near() : subnet.ipv6Near(),
                address(v4 ? subnet.ipv4(77) : subnet.ipv6(0x77)));
        assertThat(outcome.event().type()).isEqualTo(CmEventType.ADDR_ERROR);
        assertThat(outcome.event().status()).as("−ETIMEDOUT").isEqualTo(-110);
        assertThat(outcome.millis()).isBetween(RESOLVE_TIMEOUT.toMillis(), RESOLVE_TIMEOUT.toMillis() + 1000);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"IPv4", "IPv6"})
    @DisplayName("addr.c netevent_callback: a neighbour that starts answering mid-way resolves then, not at the "
            + "start and not only at the timeout")
    void neighbourAnsweringLaterResolvesThen(String version) throws Exception {
        boolean v4 = version.equals("IPv4");
        neighbourAnsweringLaterResolvesThen(v4 ? subnet.ipv4Near() : subnet.ipv6Near(),
                v4 ? subnet.ipv4(3) : subnet.ipv6(3));
    }

    private static void neighbourAnsweringLaterResolvesThen(String deviceAddress, String neighbour) throws Exception {
        Duration timeout = Duration.ofSeconds(6);
        try (UdpRnic device = UdpRnic.open("rxe0", deviceAddress)) {
            EventChannel channel = EmulatedCm.of(device.rnic()).createEventChannel();
            CmId id = channel.createId(PortSpace.TCP);
            long start = System.nanoTime();
            id.resolveAddr(null, new InetSocketAddress(address(neighbour), 7471), timeout);
            assertThat(channel.getEvent(Duration.ofMillis(800))).as("an event before the neighbour exists").isEmpty();
            subnet.farEndTakes(neighbour);
            long answering = (System.nanoTime() - start) / 1_000_000;
            CmEvent event = channel.getEvent(PATIENCE).orElseThrow(() -> new AssertionError("no event"));
            long millis = (System.nanoTime() - start) / 1_000_000;
            assertThat(event.type()).as("%s status %d", event.type(), event.status()).isEqualTo(CmEventType.ADDR_RESOLVED);
            assertThat(millis).as("resolved after the neighbour answered (at %d ms), well before the timeout", answering)
                    .isBetween(answering, timeout.toMillis() - 2000);
            assertThat(id.localAddress().getAddress()).isEqualTo(address(deviceAddress));
            event.ack();
            id.close();
        }
    }
}
