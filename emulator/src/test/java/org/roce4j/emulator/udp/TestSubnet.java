package org.roce4j.emulator.udp;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.roce4j.testing.RequiredInCi;

/**
 * Subnets a test controls on this host (needs root, as {@code .ci/run} has): a veth pair whose near
 * end {@code r4jaPID} has {@link #ipv4Near()} and {@link #ipv6Near()} and whose far end sits in the
 * network namespace {@code r4jPID} — an address there answers ARP and neighbour solicitations, any
 * other address of the subnets nobody owns. And an {@code unreachable} route for {@link #unrouted()}.
 * The third IPv4 byte and the IPv6 subnet come from the process id, so runs side by side do not meet.
 * In CI a host where this cannot be built fails the test; elsewhere it is skipped, saying why.
 */
final class TestSubnet implements AutoCloseable {
    private final long pid = ProcessHandle.current().pid();
    private final String near = "r4ja" + pid % 100_000;
    private final String far = "r4jb" + pid % 100_000;
    private final String namespace = "r4j" + pid;
    private final int octet = (int) (pid % 250) + 1;
    private final String prefix6 = "2001:db8:4a4a:" + Long.toHexString(pid % 0xFFFF) + "::";
    private final List<List<String>> undo = new ArrayList<>();

    static TestSubnet create() {
        TestSubnet subnet = new TestSubnet();
        try {
            subnet.build();
        } catch (IOException | InterruptedException e) {
            subnet.close();
            RequiredInCi.require(false, "root with veth and network namespaces (ip link add … type veth, ip netns) "
                    + "to build a test subnet: " + e.getMessage());
        }
        return subnet;
    }

    private void build() throws IOException, InterruptedException {
        ip("netns", "add", namespace);
        undo.add(List.of("netns", "del", namespace));
        ip("link", "add", near, "type", "veth", "peer", "name", far);
        undo.add(List.of("link", "del", near));
        ip("link", "set", far, "netns", namespace);
        // No link-local address on the near end: the device would bind it too, and it is tentative for a while.
        ip("link", "set", near, "addrgenmode", "none");
        ip("link", "set", near, "up");
        ip("addr", "add", ipv4Near() + "/24", "dev", near);
        ip("-6", "addr", "add", ipv6Near() + "/64", "dev", near, "nodad");
        ip("-n", namespace, "link", "set", far, "up");
        ip("route", "add", "unreachable", unrouted() + "/32");
        undo.add(List.of("route", "del", "unreachable", unrouted() + "/32"));
    }

    String ipv4Near() {
        return "198.18." + octet + ".1";
    }

    /** An IPv4 address of the subnet: host {@code n}. */
    String ipv4(int n) {
        return "198.18." + octet + "." + n;
    }

    String ipv6Near() {
        return prefix6 + "1";
    }

    String ipv6(int n) {
        return prefix6 + Integer.toHexString(n);
    }

    /** An address with an {@code unreachable} route: the kernel says "No route to host". */
    String unrouted() {
        return "203.0.113." + octet;
    }

    /** Gives the far end (in the namespace) {@code address}: from now on it answers for it. */
    void farEndTakes(String address) throws IOException, InterruptedException {
        boolean v6 = address.contains(":");
        if (v6) {
            ip("-n", namespace, "-6", "addr", "add", address + "/64", "dev", far, "nodad");
        } else {
            ip("-n", namespace, "addr", "add", address + "/24", "dev", far);
        }
    }

    private static void ip(String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of("ip"));
        command.addAll(List.of(args));
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
        if (!process.waitFor(10, TimeUnit.SECONDS) || process.exitValue() != 0) {
            throw new IOException(String.join(" ", command) + ": " + out);
        }
    }

    @Override
    public void close() {
        for (int i = undo.size() - 1; i >= 0; i--) {
            try {
                ip(undo.get(i).toArray(new String[0]));
            } catch (IOException | InterruptedException e) {
                System.err.println("test subnet clean-up: " + e.getMessage());
            }
        }
        undo.clear();
    }
}
