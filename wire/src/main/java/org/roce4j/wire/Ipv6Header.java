package org.roce4j.wire;

import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Arrays;

/** IPv6 header (RFC 8200) with next header UDP and no extension headers; payload length is computed. */
public record Ipv6Header(int trafficClass, int flowLabel, int hopLimit, Inet6Address source, Inet6Address destination)
        implements IpHeader {
    static final int LENGTH = 40;
    /** Where the source address starts; the destination follows it. */
    static final int SOURCE_OFFSET = 8;
    static final int NEXT_HEADER_UDP = 17;

    public Ipv6Header {
        Bytes.requireRange("traffic class", trafficClass, 0, 0xFF);
        Bytes.requireRange("flow label", flowLabel, 0, 0xFFFFF);
        Bytes.requireRange("hop limit", hopLimit, 0, 0xFF);
        if (source == null || destination == null) {
            throw new IllegalArgumentException("source and destination are required");
        }
    }

    @Override
    public int version() {
        return 6;
    }

    @Override
    public int length() {
        return LENGTH;
    }

    static Ipv6Header decode(byte[] b, int off) {
        int first = Bytes.i32(b, off);
        return new Ipv6Header(first >>> 20 & 0xFF, first & 0xFFFFF, Bytes.u8(b, off + 7),
                address(b, off + 8), address(b, off + 24));
    }

    @Override
    public void encode(byte[] b, int off, int payloadLength) {
        write(b, off, trafficClass, flowLabel, hopLimit, source.getAddress(), destination.getAddress(), payloadLength);
    }

    /** Writes the header, addresses from the first 16 bytes of each array. */
    static void write(byte[] b, int off, int trafficClass, int flowLabel, int hopLimit, byte[] source,
                      byte[] destination, int payloadLength) {
        Bytes.u16(b, off + 4, payloadLength);
        Bytes.u8(b, off + 6, NEXT_HEADER_UDP);
        writeVariantFields(b, off, trafficClass, flowLabel, hopLimit);
        System.arraycopy(source, 0, b, off + 8, 16);
        System.arraycopy(destination, 0, b, off + 24, 16);
    }

    /** Version, traffic class, flow label and hop limit: what {@link IpHeader#writeVariantFields} rewrites. */
    static void writeVariantFields(byte[] b, int off, int trafficClass, int flowLabel, int hopLimit) {
        Bytes.i32(b, off, 6 << 28 | trafficClass << 20 | flowLabel);
        Bytes.u8(b, off + 7, hopLimit);
    }

    private static Inet6Address address(byte[] b, int off) {
        try {
            // getByAddress would turn an IPv4-mapped address into an Inet4Address; keep it IPv6.
            return Inet6Address.getByAddress(null, Arrays.copyOfRange(b, off, off + 16), null);
        } catch (UnknownHostException impossible) {
            throw new AssertionError(impossible);
        }
    }

    /** Parses a textual IPv6 address into an Inet6Address, keeping IPv4-mapped ones IPv6. */
    public static Inet6Address parseAddress(String text) {
        try {
            byte[] raw = InetAddress.getByName(text).getAddress();
            return Inet6Address.getByAddress(null, raw.length == 16 ? raw : mapped(raw), null);
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException("not an IPv6 address: " + text, e);
        }
    }

    private static byte[] mapped(byte[] v4) {
        byte[] v6 = new byte[16];
        v6[10] = (byte) 0xFF;
        v6[11] = (byte) 0xFF;
        System.arraycopy(v4, 0, v6, 12, 4);
        return v6;
    }
}
