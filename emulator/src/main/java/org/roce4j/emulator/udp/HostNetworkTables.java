package org.roce4j.emulator.udp;

import java.io.IOException;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.net.StandardProtocolFamily;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;

import org.roce4j.emulator.HostRoute;
import org.roce4j.verbs.Errno;

/**
 * The host's own routing and neighbour tables, read as rdma_cm needs them for address resolution
 * over the UDP link (addr.c {@code addr_resolve}, {@code addr_resolve_neigh}, {@code dst_fetch_ha}).
 * Linux only; elsewhere every answer is {@link HostRoute.Kind#UNKNOWN} with the reason.
 *
 * <ul>
 * <li>Route: a {@code DatagramChannel} connected to the destination is the kernel's own route
 *     lookup — it fails with the kernel's errno when there is none ("Network is unreachable",
 *     "No route to host" for an {@code unreachable} route) and its local address is the source the
 *     kernel picks. The next hop and the interface come from the main table,
 *     {@code /proc/net/route} and {@code /proc/net/ipv6_route}, by longest prefix then metric
 *     (policy routing is not followed).</li>
 * <li>Neighbour: {@code /proc/net/arp} for IPv4 (flag {@code ATF_COM} is {@code NUD_VALID});
 *     IPv6 has no such file, so {@code ip -6 neigh show to ADDRESS dev IF} (iproute2) — a process
 *     per look-up, on a virtual thread, is far less code than an rtnetlink client and a look-up
 *     happens only while an id resolves.</li>
 * <li>Trigger: while the entry is not valid, an empty datagram to the destination's UDP port 9
 *     (discard, RFC 863) makes the kernel resolve it, as {@code neigh_event_send} does — not 4791,
 *     so no RoCE receiver takes it for a packet.</li>
 * </ul>
 */
final class HostNetworkTables {
    /** The discard port (RFC 863): where the datagram that makes the kernel resolve a neighbour goes. */
    static final int TRIGGER_PORT = 9;
    private static final Path ROUTES4 = Path.of("/proc/net/route");
    private static final Path ROUTES6 = Path.of("/proc/net/ipv6_route");
    private static final Path ARP = Path.of("/proc/net/arp");
    private static final List<Path> IP_COMMANDS = List.of(Path.of("/usr/sbin/ip"), Path.of("/sbin/ip"),
            Path.of("/usr/bin/ip"), Path.of("/bin/ip"));
    /** {@code <linux/if.h>}: interfaces that resolve no neighbour (addr.c {@code addr_resolve_neigh}). */
    private static final int IFF_LOOPBACK = 0x8;
    private static final int IFF_NOARP = 0x80;
    /** {@code <linux/route.h>}: route flags in the /proc tables. */
    private static final int RTF_UP = 0x1;
    private static final int RTF_GATEWAY = 0x2;
    private static final int RTF_REJECT = 0x200;
    private static final int RTF_LOCAL = 0x8000_0000;
    /** {@code <net/if_arp.h>} ATF_COM: the entry has a hardware address — the kernel writes it for NUD_VALID. */
    private static final int ATF_COM = 0x2;
    /** The states {@code ip neigh} prints for {@code NUD_VALID}. */
    private static final List<String> VALID_STATES = List.of("REACHABLE", "STALE", "DELAY", "PROBE", "PERMANENT",
            "NOARP");

    /** {@return what the kernel would do with a datagram from {@code source} (null: any) to {@code destination}} */
    HostRoute route(InetAddress destination, InetAddress source) {
        if (!Files.isReadable(ROUTES4)) {
            return HostRoute.unknown(destination, "no " + ROUTES4 + ": the host's routing table is read on Linux only");
        }
        if (isOwnAddress(destination)) {
            return HostRoute.local(destination);
        }
        InetAddress picked;
        try (DatagramChannel channel = DatagramChannel.open(destination instanceof Inet6Address
                ? StandardProtocolFamily.INET6 : StandardProtocolFamily.INET)) {
            if (source != null) {
                try {
                    channel.bind(new InetSocketAddress(source, 0));
                } catch (IOException e) {
                    return HostRoute.unknown(destination, "cannot send from " + source.getHostAddress() + ": " + e);
                }
            }
            channel.connect(new InetSocketAddress(destination, TRIGGER_PORT));
            picked = ((InetSocketAddress) channel.getLocalAddress()).getAddress();
        } catch (IOException e) {
            Errno errno = errnoOf(e);
            return errno == null ? HostRoute.unknown(destination, "route look-up failed: " + e)
                    : HostRoute.noRoute(destination, errno.number());
        }
        NextHop hop;
        try {
            hop = destination instanceof Inet6Address v6 ? nextHop6(v6) : nextHop4((Inet4Address) destination);
        } catch (IOException | RuntimeException e) {
            return HostRoute.unknown(destination, "cannot read the routing table: " + e);
        }
        if (hop == null) {
            return HostRoute.unknown(destination, "the kernel routes " + destination.getHostAddress()
                    + " but not by the main table (policy routing is not followed)");
        }
        if (destination instanceof Inet6Address && ipCommand() == null) {
            return HostRoute.unknown(destination, "IPv6 neighbours are read with iproute2's ip, not found in " + IP_COMMANDS);
        }
        HostRoute.Kind kind = (interfaceFlags(hop.interfaceName()) & (IFF_LOOPBACK | IFF_NOARP)) != 0
                ? HostRoute.Kind.NO_NEIGHBOUR_NEEDED : HostRoute.Kind.NEIGHBOUR;
        return new HostRoute(kind, destination, 0, picked, hop.address(), hop.interfaceName(), null);
    }

    /** Valid when the next hop's entry is NUD_VALID; else sends the trigger datagram. On a virtual thread. */
    CompletionStage<Boolean> neighbourValid(HostRoute route) {
        CompletableFuture<Boolean> answer = new CompletableFuture<>();
        Thread.ofVirtual().name("roce4j-neighbour").start(() -> {
            try {
                boolean valid = route.nextHop() instanceof Inet6Address ? valid6(route) : valid4(route);
                if (!valid) {
                    trigger(route);
                }
                answer.complete(valid);
            } catch (IOException | RuntimeException e) {
                answer.complete(false); // unreadable now: not valid; the timeout still ends the resolution
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                answer.complete(false);
            }
        });
        return answer;
    }

    /** The host's address, or loopback: no neighbour, as {@code addr_resolve_neigh} does for IFF_LOOPBACK. */
    private static boolean isOwnAddress(InetAddress destination) {
        if (destination.isLoopbackAddress()) {
            return true;
        }
        try {
            return NetworkInterface.getByInetAddress(destination) != null;
        } catch (SocketException e) {
            return false;
        }
    }

    /** The errno whose strerror text the exception carries (the JDK passes the kernel's on), or null. */
    static Errno errnoOf(IOException e) {
        String message = e.getMessage();
        if (message == null) {
            return null;
        }
        for (Errno errno : Errno.values()) {
            if (message.contains(errno.text())) {
                return errno;
            }
        }
        return null;
    }

    // ---- next hop: the main table, longest prefix then lowest metric ------------------------------

    record NextHop(InetAddress address, String interfaceName) {
    }

    private static NextHop nextHop4(Inet4Address destination) throws IOException {
        int target = toInt(destination.getAddress());
        NextHop best = null;
        int bestLength = -1;
        long bestMetric = Long.MAX_VALUE;
        List<String> lines = Files.readAllLines(ROUTES4);
        for (String line : lines.subList(1, lines.size())) {
            String[] f = line.trim().split("\\s+");
            if (f.length < 8) {
                continue;
            }
            int flags = Integer.parseInt(f[3], 16);
            // The kernel prints the addresses as host-order words: little-endian on the machines roce4j runs on.
            int network = Integer.reverseBytes((int) Long.parseLong(f[1], 16));
            int mask = Integer.reverseBytes((int) Long.parseLong(f[7], 16));
            long metric = Long.parseLong(f[6]);
            int length = Integer.bitCount(mask);
            if ((flags & RTF_UP) == 0 || (flags & RTF_REJECT) != 0 || (target & mask) != network) {
                continue;
            }
            if (length > bestLength || (length == bestLength && metric < bestMetric)) {
                InetAddress via = (flags & RTF_GATEWAY) != 0
                        ? InetAddress.getByAddress(toBytes(Integer.reverseBytes((int) Long.parseLong(f[2], 16))))
                        : destination;
                best = new NextHop(via, f[0]);
                bestLength = length;
                bestMetric = metric;
            }
        }
        return best;
    }

    private static NextHop nextHop6(Inet6Address destination) throws IOException {
        if (destination.isLinkLocalAddress() && destination.getScopedInterface() != null) {
            return new NextHop(destination, destination.getScopedInterface().getName());
        }
        byte[] target = destination.getAddress();
        NextHop best = null;
        int bestLength = -1;
        long bestMetric = Long.MAX_VALUE;
        for (String line : Files.readAllLines(ROUTES6)) {
            String[] f = line.trim().split("\\s+");
            if (f.length < 10) {
                continue;
            }
            int length = Integer.parseInt(f[1], 16);
            long metric = Long.parseLong(f[5], 16);
            int flags = (int) Long.parseLong(f[8], 16);
            if ((flags & RTF_UP) == 0 || (flags & (RTF_REJECT | RTF_LOCAL)) != 0
                    || !samePrefix(hex(f[0]), target, length)) {
                continue;
            }
            if (length > bestLength || (length == bestLength && metric < bestMetric)) {
                InetAddress via = (flags & RTF_GATEWAY) != 0 ? InetAddress.getByAddress(hex(f[4])) : destination;
                best = new NextHop(via, f[9]);
                bestLength = length;
                bestMetric = metric;
            }
        }
        return best;
    }

    private static boolean samePrefix(byte[] network, byte[] address, int length) {
        for (int bit = 0; bit < length; bit++) {
            int mask = 0x80 >>> (bit & 7);
            if ((network[bit >>> 3] & mask) != (address[bit >>> 3] & mask)) {
                return false;
            }
        }
        return true;
    }

    private static byte[] hex(String digits) {
        byte[] bytes = new byte[digits.length() / 2];
        for (int i = 0; i < bytes.length; i++) {
            bytes[i] = (byte) Integer.parseInt(digits, 2 * i, 2 * i + 2, 16);
        }
        return bytes;
    }

    private static int toInt(byte[] b) {
        return (b[0] & 0xFF) << 24 | (b[1] & 0xFF) << 16 | (b[2] & 0xFF) << 8 | (b[3] & 0xFF);
    }

    private static byte[] toBytes(int v) {
        return new byte[] {(byte) (v >>> 24), (byte) (v >>> 16), (byte) (v >>> 8), (byte) v};
    }

    /** {@code /sys/class/net/IF/flags}; 0 when unreadable (then the neighbour is looked up). */
    private static int interfaceFlags(String interfaceName) {
        try {
            String text = Files.readString(Path.of("/sys/class/net", interfaceName, "flags")).trim();
            return Integer.decode(text);
        } catch (IOException | RuntimeException e) {
            return 0;
        }
    }

    // ---- neighbour state ------------------------------------------------------------------------

    private static boolean valid4(HostRoute route) throws IOException {
        String hop = route.nextHop().getHostAddress();
        List<String> lines = Files.readAllLines(ARP);
        for (String line : lines.subList(Math.min(1, lines.size()), lines.size())) {
            String[] f = line.trim().split("\\s+");
            if (f.length >= 6 && f[0].equals(hop) && f[5].equals(route.interfaceName())) {
                return (Integer.decode(f[2]) & ATF_COM) != 0;
            }
        }
        return false;
    }

    private static boolean valid6(HostRoute route) throws IOException, InterruptedException {
        Path ip = ipCommand();
        if (ip == null) {
            return false;
        }
        String hop = route.nextHop().getHostAddress();
        int scope = hop.indexOf('%');
        Process process = new ProcessBuilder(ip.toString(), "-6", "neigh", "show", "to",
                scope < 0 ? hop : hop.substring(0, scope), "dev", route.interfaceName())
                .redirectErrorStream(true).start();
        String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.US_ASCII);
        if (!process.waitFor(2, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            return false;
        }
        for (String word : out.trim().split("\\s+")) {
            if (VALID_STATES.contains(word)) {
                return true;
            }
        }
        return false;
    }

    private static Path ipCommand() {
        for (Path candidate : IP_COMMANDS) {
            if (Files.isExecutable(candidate)) {
                return candidate;
            }
        }
        return null;
    }

    /** neigh_event_send's part: a datagram the kernel must resolve the next hop for, from the route's source. */
    private static void trigger(HostRoute route) throws IOException {
        try (DatagramChannel channel = DatagramChannel.open(route.destination() instanceof Inet6Address
                ? StandardProtocolFamily.INET6 : StandardProtocolFamily.INET)) {
            if (route.source() != null) {
                channel.bind(new InetSocketAddress(route.source(), 0));
            }
            channel.send(ByteBuffer.allocate(0), new InetSocketAddress(route.destination(), TRIGGER_PORT));
        }
    }
}
