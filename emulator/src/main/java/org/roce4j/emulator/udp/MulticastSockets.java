package org.roce4j.emulator.udp;

import java.io.IOException;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.socket.DatagramChannel;
import org.roce4j.wire.UdpHeader;

/**
 * The sockets through which a UDP link hears its multicast groups: one per group, bound to
 * GROUP:4791 (a socket bound to a unicast address never sees a group's datagrams) with SO_REUSEADDR
 * (so that every device of the host that joined the group gets its copy), joined on the link's
 * interface (IP_ADD_MEMBERSHIP / IPV6_JOIN_GROUP: the kernel then sends the IGMP or MLD report, as
 * rdma_cm's join does for rxe, and loops the host's own multicast back to it). The receive path is the
 * link's: the group address is the destination the ICRC is computed over.
 */
final class MulticastSockets {
    private final String interfaceName;
    /** Binds a socket for the group, SO_REUSEADDR set, its receive handler the link's. */
    private final Function<InetAddress, ChannelFuture> bindToGroup;
    private final Map<InetAddress, Channel> joined = new LinkedHashMap<>();
    private final AtomicLong joinFailures = new AtomicLong();

    MulticastSockets(String interfaceName, Function<InetAddress, ChannelFuture> bindToGroup) {
        this.interfaceName = interfaceName;
        this.bindToGroup = bindToGroup;
    }

    /** Joins the groups of {@code wanted} not joined yet and leaves the others. */
    synchronized void update(List<InetAddress> wanted) {
        for (var it = joined.entrySet().iterator(); it.hasNext(); ) {
            var entry = it.next();
            if (!wanted.contains(entry.getKey())) {
                entry.getValue().close().awaitUninterruptibly(2_000); // closing the socket drops its membership
                it.remove();
            }
        }
        for (InetAddress group : wanted) {
            if (!joined.containsKey(group)) {
                try {
                    joined.put(group, join(group));
                } catch (IOException e) {
                    joinFailures.incrementAndGet(); // the group's datagrams will not arrive: counted, not thrown
                }
            }
        }
    }

    private Channel join(InetAddress group) throws IOException {
        NetworkInterface netdev = NetworkInterface.getByName(interfaceName);
        if (netdev == null) {
            throw new SocketException("no interface " + interfaceName);
        }
        ChannelFuture bound = bindToGroup.apply(group).awaitUninterruptibly();
        if (!bound.isSuccess()) {
            throw new IOException("cannot bind " + group + ":" + UdpHeader.ROCE_PORT, bound.cause());
        }
        Channel channel = bound.channel();
        ChannelFuture membership = ((DatagramChannel) channel)
                .joinGroup(new InetSocketAddress(group, UdpHeader.ROCE_PORT), netdev).awaitUninterruptibly();
        if (!membership.isSuccess()) {
            channel.close().awaitUninterruptibly(2_000);
            throw new IOException("cannot join " + group + " on " + interfaceName
                    + (group instanceof Inet6Address && netdev.isLoopback() ? " (lo has no IPv6 multicast)" : ""),
                    membership.cause());
        }
        return channel;
    }

    /** {@return the groups joined, in the order they were} */
    synchronized List<InetAddress> joined() {
        return List.copyOf(joined.keySet());
    }

    long joinFailures() {
        return joinFailures.get();
    }

    synchronized void close() {
        for (Channel channel : joined.values()) {
            channel.close().awaitUninterruptibly(2_000);
        }
        joined.clear();
    }
}
