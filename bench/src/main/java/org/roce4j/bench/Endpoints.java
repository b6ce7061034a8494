package org.roce4j.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;

/**
 * The peers a benchmark against another host talks to, given as system properties
 * ({@code -Dname=ADDRESS:PORT}, IPv6 as {@code [ADDRESS]:PORT}). A missing or malformed one is an
 * {@link IllegalStateException} that names the property: such a benchmark must stop, not report a
 * number for something it did not do.
 */
final class Endpoints {
    private Endpoints() {}

    /**
     * {@return the endpoint the system property names}
     *
     * @param property the property, e.g. {@code roce4j.bench.cm.target}
     * @param what     what the endpoint is, for the message when the property is missing
     */
    static InetSocketAddress required(String property, String what) {
        String value = System.getProperty(property);
        if (value == null || value.isBlank()) {
            throw new IllegalStateException("-D" + property + "=ADDRESS:PORT is not set: " + what
                    + "; without it this benchmark has nothing to measure");
        }
        return parse(property, value);
    }

    /** {@return {@code ADDRESS:PORT} or {@code [IPV6]:PORT} as an address; {@code source} names it in errors} */
    static InetSocketAddress parse(String source, String value) {
        int colon = value.lastIndexOf(':');
        String host = colon < 0 ? "" : value.substring(0, colon);
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        }
        try {
            int port = Integer.parseInt(value.substring(colon + 1));
            if (host.isEmpty() || port < 1 || port > 0xFFFF) {
                throw new IllegalArgumentException("port");
            }
            return new InetSocketAddress(InetAddress.ofLiteral(host), port);
        } catch (IllegalArgumentException e) {
            throw new IllegalStateException(source + "=" + value + " is not ADDRESS:PORT (an IP literal, a port 1-65535)");
        }
    }

    /**
     * {@return the address of this host that the kernel's routing table picks to reach {@code peer}}
     * (a connected UDP socket's local address; no datagram is sent), as rdma_cm picks the source.
     */
    static InetAddress sourceFor(InetAddress peer) {
        try (DatagramSocket probe = new DatagramSocket()) {
            probe.connect(peer, 9);
            InetAddress source = probe.getLocalAddress();
            if (source.isAnyLocalAddress()) {
                throw new IOException("the routing table gives no source address");
            }
            return source;
        } catch (IOException e) {
            throw new UncheckedIOException("no route to " + peer.getHostAddress(), e);
        }
    }
}
