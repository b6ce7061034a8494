package org.roce4j.verbs;

import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.HexFormat;

/**
 * A 128-bit global identifier ({@code union ibv_gid}). On RoCEv2 a GID is an IPv6 address, or an
 * IPv4 address mapped as {@code ::ffff:a.b.c.d}.
 *
 * @param subnetPrefix the first 8 bytes, big-endian
 * @param interfaceId  the last 8 bytes, big-endian
 */
public record Gid(long subnetPrefix, long interfaceId) {
    public static final Gid ZERO = new Gid(0, 0);

    /**
     * {@return the GID of 16 raw bytes, in network order}
     *
     * @param raw the bytes
     * @throws IllegalArgumentException unless there are 16
     */
    public static Gid of(byte[] raw) {
        if (raw.length != 16) {
            throw new IllegalArgumentException("a GID has 16 bytes, not " + raw.length);
        }
        return new Gid(readLong(raw, 0), readLong(raw, 8));
    }

    /**
     * {@return the GID of an address: IPv6 as is, IPv4 mapped into {@code ::ffff:0:0/96}}
     *
     * @param address the address
     */
    public static Gid of(InetAddress address) {
        if (address instanceof Inet4Address) {
            byte[] v4 = address.getAddress();
            long low = 0xFFFF_0000_0000L
                    | (v4[0] & 0xFFL) << 24 | (v4[1] & 0xFFL) << 16 | (v4[2] & 0xFFL) << 8 | (v4[3] & 0xFFL);
            return new Gid(0, low);
        }
        return of(address.getAddress());
    }

    /**
     * {@return the GID of an IPv6 literal such as {@code fe80::1} or {@code ::ffff:10.0.0.1}, as {@code ibv_devinfo -v} prints GIDs}
     *
     * @param text the literal
     * @throws IllegalArgumentException if it is not an IPv6 literal
     */
    public static Gid parse(String text) {
        if (!text.contains(":")) {
            throw new IllegalArgumentException("not a GID: " + text);
        }
        try {
            InetAddress address = InetAddress.getByName(text);
            return of(address);
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException("not a GID: " + text, e);
        }
    }

    /** {@return the 16 bytes, in network order} */
    public byte[] raw() {
        byte[] raw = new byte[16];
        for (int i = 0; i < 8; i++) {
            raw[i] = (byte) (subnetPrefix >>> (56 - 8 * i));
            raw[8 + i] = (byte) (interfaceId >>> (56 - 8 * i));
        }
        return raw;
    }

    /** {@return true for {@code ::ffff:a.b.c.d}, the GID type RoCEv2 uses over IPv4} */
    public boolean isIpv4Mapped() {
        return subnetPrefix == 0 && (interfaceId >>> 32) == 0xFFFFL;
    }

    /**
     * {@return true for a multicast group: {@code ff00::/8}, or an IPv4-mapped {@code 224.0.0.0/4}}
     * (include/rdma/ib_addr.h rdma_is_multicast_addr)
     */
    public boolean isMulticast() {
        return (subnetPrefix >>> 56) == 0xFF || isIpv4Mapped() && ((interfaceId >>> 28) & 0xF) == 0xE;
    }

    /** {@return the IP address this GID stands for: an IPv4 address when mapped, an IPv6 address otherwise} */
    public InetAddress toInetAddress() {
        try {
            if (isIpv4Mapped()) {
                int v4 = (int) interfaceId;
                return InetAddress.getByAddress(new byte[] {
                        (byte) (v4 >>> 24), (byte) (v4 >>> 16), (byte) (v4 >>> 8), (byte) v4});
            }
            return Inet6Address.getByAddress(null, raw(), null);
        } catch (UnknownHostException e) {
            throw new IllegalStateException("16 bytes are always an address", e);
        }
    }

    /** The form {@code ibv_devinfo} and the rdma-core examples print: eight groups of four hex digits. */
    @Override
    public String toString() {
        String hex = HexFormat.of().formatHex(raw());
        StringBuilder text = new StringBuilder(39);
        for (int i = 0; i < 32; i += 4) {
            if (i > 0) {
                text.append(':');
            }
            text.append(hex, i, i + 4);
        }
        return text.toString();
    }

    private static long readLong(byte[] raw, int offset) {
        long value = 0;
        for (int i = 0; i < 8; i++) {
            value = value << 8 | (raw[offset + i] & 0xFFL);
        }
        return value;
    }
}
