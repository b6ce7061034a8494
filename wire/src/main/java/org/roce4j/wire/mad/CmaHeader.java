package org.roce4j.wire.mad;

import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Arrays;
import java.util.Optional;

/**
 * rdma_cm's addressing header, the first 36 bytes of the private data of every REQ and SIDR_REQ it
 * sends for an IP port space (Linux cma.c {@code struct cma_hdr}, written by {@code
 * cma_format_hdr}): version 0, the IP version in the high nibble of byte 1, the source port, then
 * the source and destination addresses 16 bytes each. An IPv4 address fills the last 4 of its 16
 * bytes after 12 zeros ({@code union cma_ip_addr}'s {@code ip4.pad[3]}; the captures agree), not
 * the ::ffff: form. The destination port is the service ID's ({@link ServiceId#port}). The
 * application's private data follows, so it gets 36 bytes less ({@code cma_user_data_offset}).
 * The IB port space sends no such header.
 *
 * @param sourcePort  the active side's port
 * @param source      the active side's address
 * @param destination the address connected to, of the same IP version as {@code source}
 */
public record CmaHeader(int sourcePort, InetAddress source, InetAddress destination) {

    /** {@code sizeof(struct cma_hdr)}. */
    public static final int LENGTH = 36;
    /** cma.c {@code CMA_VERSION}. */
    public static final int CMA_VERSION = 0x00;

    private static final Field VERSION = Field.at(0, 8);
    private static final Field IP_VERSION = Field.at(1, 4);
    private static final Field PORT = Field.at(2, 16);
    private static final Field SOURCE = Field.bytes(4, 16);
    private static final Field DESTINATION = Field.bytes(20, 16);
    private static final int IPV4_IN_16 = 12;

    public CmaHeader {
        PORT.check("source port", sourcePort);
        if (source == null || destination == null || source.getClass() != destination.getClass()) {
            throw new IllegalArgumentException("source " + source + " and destination " + destination
                    + " must be addresses of one IP version");
        }
    }

    /** {@return 4 or 6, the IP version the header's byte 1 carries} */
    public int ipVersion() {
        return source instanceof Inet4Address ? 4 : 6;
    }

    /** Writes the 36 bytes at {@code off}. */
    public void encode(byte[] buf, int off) {
        Arrays.fill(buf, off, off + LENGTH, (byte) 0);
        VERSION.put(buf, off, CMA_VERSION);
        IP_VERSION.put(buf, off, ipVersion());
        PORT.put(buf, off, sourcePort);
        putAddress(buf, off, SOURCE, source);
        putAddress(buf, off, DESTINATION, destination);
    }

    private static void putAddress(byte[] buf, int off, Field field, InetAddress address) {
        byte[] bytes = address.getAddress();
        System.arraycopy(bytes, 0, buf, off + field.byteOffset() + field.length() - bytes.length, bytes.length);
    }

    /**
     * {@return the header at {@code off}, or empty where rdma_cm would refuse it} cma.c
     * {@code cma_save_ip_info}: a version other than {@link #CMA_VERSION} is EINVAL, an IP version
     * other than 4 or 6 EAFNOSUPPORT; fewer than 36 bytes cannot hold one. Never throws.
     *
     * @param buf the private data's buffer
     * @param off where the private data starts
     * @param len the private data's length
     */
    public static Optional<CmaHeader> decode(byte[] buf, int off, int len) {
        if (off < 0 || len < LENGTH || off > buf.length - LENGTH) {
            return Optional.empty();
        }
        if (VERSION.getInt(buf, off) != CMA_VERSION) {
            return Optional.empty();
        }
        int port = PORT.getInt(buf, off);
        return switch (IP_VERSION.getInt(buf, off)) {
            case 4 -> Optional.of(new CmaHeader(port, ipv4(buf, off, SOURCE), ipv4(buf, off, DESTINATION)));
            case 6 -> Optional.of(new CmaHeader(port, ipv6(buf, off, SOURCE), ipv6(buf, off, DESTINATION)));
            default -> Optional.empty();
        };
    }

    private static InetAddress ipv4(byte[] buf, int off, Field field) {
        int from = off + field.byteOffset() + IPV4_IN_16; // cma_save_ip4_info reads ip4.addr only
        try {
            return InetAddress.getByAddress(Arrays.copyOfRange(buf, from, from + 4));
        } catch (UnknownHostException e) {
            throw new AssertionError("4 bytes are an IPv4 address", e);
        }
    }

    private static InetAddress ipv6(byte[] buf, int off, Field field) {
        try { // Inet6Address keeps a ::ffff: address IPv6, as cma_save_ip6_info does
            return Inet6Address.getByAddress(null, field.getBytes(buf, off), -1);
        } catch (UnknownHostException e) {
            throw new AssertionError("16 bytes are an IPv6 address", e);
        }
    }
}
