package org.roce4j.emulator.udp;

import java.io.IOException;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InterfaceAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.util.ArrayList;
import java.util.List;

import org.roce4j.verbs.Gid;
import org.roce4j.wire.MacAddress;

/**
 * What a UDP device is attached to, resolved from the user's spec as {@code rdma link add rxe0 type
 * rxe netdev eth0} resolves a netdev: the addresses its sockets bind (each ADDRESS:4791), its MAC
 * and its GID table, filled as Linux fills an rxe port's from the netdev's addresses —
 * GID 0 the IPv6 link-local address (or {@code fe80::} + the modified EUI-64 of the MAC when the
 * interface has none, as {@code lo}), GID 1 the IPv4 address as {@code ::ffff:a.b.c.d}, then the
 * other IPv6 addresses.
 *
 * <p>An address spec ({@code 127.0.0.2}) gives a device on that one address: one socket, GID 0 as
 * above, GID 1 (or, for an IPv6 address, the next GID) the address. Several devices can so share
 * an interface. An interface spec ({@code eth0}) binds every address of the interface.
 */
record LinkAddresses(String interfaceName, MacAddress mac, List<InetAddress> bound, List<Gid> gids) {

    /** {@return the index of the host interface, 0 if it has gone} */
    int interfaceIndex() throws IOException {
        NetworkInterface netdev = NetworkInterface.getByName(interfaceName);
        return netdev == null ? 0 : netdev.getIndex();
    }

    static LinkAddresses resolve(String spec) throws IOException {
        if (spec == null || spec.isBlank()) {
            throw new IllegalArgumentException("no address or interface given");
        }
        InetAddress literal = literal(spec.trim());
        return literal != null ? ofAddress(literal) : ofInterface(spec.trim());
    }

    private static InetAddress literal(String spec) {
        try {
            return InetAddress.ofLiteral(spec.startsWith("[") && spec.endsWith("]") ? spec.substring(1, spec.length() - 1) : spec);
        } catch (IllegalArgumentException notALiteral) {
            return null;
        }
    }

    private static LinkAddresses ofAddress(InetAddress address) throws IOException {
        if (address.isAnyLocalAddress() || address.isMulticastAddress()) {
            throw new IllegalArgumentException(address.getHostAddress()
                    + " is not a unicast address of this host: give the address the device sends from");
        }
        NetworkInterface netdev = NetworkInterface.getByInetAddress(address);
        if (netdev == null && address.isLoopbackAddress()) {
            netdev = loopback(); // 127.0.0.2..: on lo by its 127.0.0.0/8 route, not listed as an address
        }
        if (netdev == null) {
            throw new IOException(address.getHostAddress() + " is not an address of any interface of this host");
        }
        MacAddress mac = macOf(netdev, address);
        List<Gid> gids = new ArrayList<>();
        gids.add(linkLocalGid(netdev, mac));
        if (!isLinkLocal(address)) {
            gids.add(Gid.of(address));
        }
        // GID 0 is the interface's link-local address: bind it too (after the address asked for),
        // or frames sent from GID 0 would have no socket, as `rdma link add … netdev` sends from it.
        List<InetAddress> bound = new ArrayList<>(List.of(address));
        Inet6Address linkLocal = linkLocalAddress(netdev);
        if (linkLocal != null && !linkLocal.equals(address)) {
            bound.add(linkLocal);
        }
        return new LinkAddresses(netdev.getName(), mac, List.copyOf(bound), List.copyOf(gids));
    }

    private static LinkAddresses ofInterface(String name) throws IOException {
        NetworkInterface netdev;
        try {
            netdev = NetworkInterface.getByName(name);
        } catch (SocketException e) {
            throw new IOException("cannot look up interface " + name + ": " + e.getMessage(), e);
        }
        if (netdev == null) {
            throw new IllegalArgumentException("'" + name + "' is neither an IPv4/IPv6 address nor an interface of this host");
        }
        if (!netdev.isUp()) {
            throw new IOException("interface " + name + " is down");
        }
        Inet4Address ipv4 = null;
        Inet6Address linkLocal = null;
        List<Inet6Address> others = new ArrayList<>();
        for (InterfaceAddress ia : netdev.getInterfaceAddresses()) {
            InetAddress a = ia.getAddress();
            if (a instanceof Inet4Address v4 && ipv4 == null) {
                ipv4 = v4;
            } else if (a instanceof Inet6Address v6) {
                if (v6.isLinkLocalAddress() && linkLocal == null) {
                    linkLocal = v6;
                } else if (!v6.isLinkLocalAddress()) {
                    others.add(v6);
                }
            }
        }
        if (ipv4 == null && linkLocal == null && others.isEmpty()) {
            throw new IOException("interface " + name + " has no IP address");
        }
        MacAddress mac = macOf(netdev, ipv4 != null ? ipv4 : others.isEmpty() ? linkLocal : others.getFirst());
        List<Gid> gids = new ArrayList<>();
        List<InetAddress> bound = new ArrayList<>();
        if (linkLocal != null) {
            gids.add(Gid.of(linkLocal));
            bound.add(linkLocal);
        } else {
            gids.add(eui64Gid(mac));
        }
        if (ipv4 != null) {
            gids.add(Gid.of(ipv4));
            bound.add(ipv4);
        }
        for (Inet6Address v6 : others) {
            gids.add(Gid.of(v6));
            bound.add(v6);
        }
        return new LinkAddresses(netdev.getName(), mac, List.copyOf(bound), List.copyOf(gids));
    }

    private static NetworkInterface loopback() throws SocketException {
        for (NetworkInterface netdev : NetworkInterface.networkInterfaces().toList()) {
            if (netdev.isLoopback()) {
                return netdev;
            }
        }
        return null;
    }

    private static Inet6Address linkLocalAddress(NetworkInterface netdev) {
        for (InterfaceAddress ia : netdev.getInterfaceAddresses()) {
            if (ia.getAddress() instanceof Inet6Address v6 && v6.isLinkLocalAddress()) {
                return v6;
            }
        }
        return null;
    }

    private static boolean isLinkLocal(InetAddress address) {
        return address instanceof Inet6Address && address.isLinkLocalAddress();
    }

    /** GID 0: the interface's link-local address, else fe80:: + the MAC's modified EUI-64. */
    private static Gid linkLocalGid(NetworkInterface netdev, MacAddress mac) {
        for (InterfaceAddress ia : netdev.getInterfaceAddresses()) {
            if (ia.getAddress() instanceof Inet6Address v6 && v6.isLinkLocalAddress()) {
                return Gid.of(v6);
            }
        }
        return eui64Gid(mac);
    }

    private static Gid eui64Gid(MacAddress mac) {
        long m = mac.value();
        long high = (m >>> 24) & 0xFFFFFF;
        long low = m & 0xFFFFFF;
        return new Gid(0xfe80_0000_0000_0000L, ((high ^ 0x020000L) << 40) | 0xFFFEL << 24 | low);
    }

    /**
     * The interface's MAC; an interface without one (lo) gets a locally administered MAC made from
     * the address, 02:00 and its last four bytes, so devices on 127.0.0.2 and 127.0.0.3 differ.
     */
    private static MacAddress macOf(NetworkInterface netdev, InetAddress address) throws SocketException {
        byte[] hw = netdev.getHardwareAddress();
        if (hw != null && hw.length == 6 && !allZero(hw)) {
            return mac(hw);
        }
        byte[] ip = address.getAddress();
        byte[] mac = {0x02, 0x00, ip[ip.length - 4], ip[ip.length - 3], ip[ip.length - 2], ip[ip.length - 1]};
        return mac(mac);
    }

    private static MacAddress mac(byte[] six) {
        long value = 0;
        for (byte x : six) {
            value = value << 8 | (x & 0xFF);
        }
        return new MacAddress(value);
    }

    private static boolean allZero(byte[] b) {
        for (byte x : b) {
            if (x != 0) {
                return false;
            }
        }
        return true;
    }
}
