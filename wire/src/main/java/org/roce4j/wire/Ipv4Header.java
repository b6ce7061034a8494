package org.roce4j.wire;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.UnknownHostException;

/**
 * IPv4 header without options (RFC 791), protocol UDP. Total length and header checksum are
 * computed on encode. The Identification field is covered by the RoCEv2 ICRC (A17.4.2), so the
 * frame builder must know the value that goes on the wire.
 */
public record Ipv4Header(int trafficClass, int identification, boolean dontFragment, int ttl,
                         Inet4Address source, Inet4Address destination) implements IpHeader {
    static final int LENGTH = 20;
    /** Version 4, header length 5 words: no options. */
    private static final int VERSION_AND_IHL = 0x45;
    /** Where the source address starts; the destination follows it. */
    static final int SOURCE_OFFSET = 12;
    static final int PROTOCOL_UDP = 17;
    /** The flags and fragment offset word (the 16 bits after the Identification) with only Don't Fragment set (RFC 791). */
    public static final int DONT_FRAGMENT = 0x4000;
    static final int IDENTIFICATION_OFFSET = 4;
    private static final int CHECKSUM_OFFSET = 10;

    public Ipv4Header {
        Bytes.requireRange("TOS", trafficClass, 0, 0xFF);
        Bytes.requireRange("identification", identification, 0, 0xFFFF);
        Bytes.requireRange("TTL", ttl, 0, 0xFF);
        if (source == null || destination == null) {
            throw new IllegalArgumentException("source and destination are required");
        }
    }

    @Override
    public int version() {
        return 4;
    }

    @Override
    public int length() {
        return LENGTH;
    }

    static Ipv4Header decode(byte[] b, int off) {
        return new Ipv4Header(Bytes.u8(b, off + 1), Bytes.u16(b, off + 4), (Bytes.u8(b, off + 6) & 0x40) != 0,
                Bytes.u8(b, off + 8), address(b, off + 12), address(b, off + 16));
    }

    @Override
    public void encode(byte[] b, int off, int payloadLength) {
        write(b, off, trafficClass, identification, dontFragment, ttl, source.getAddress(), destination.getAddress(),
                payloadLength);
    }

    /** Writes the header, addresses from the first 4 bytes of each array, and its checksum. */
    static void write(byte[] b, int off, int trafficClass, int identification, boolean dontFragment, int ttl,
                      byte[] source, byte[] destination, int payloadLength) {
        int totalLength = LENGTH + payloadLength;
        int flags = dontFragment ? DONT_FRAGMENT : 0;
        int sourceAddress = Bytes.i32(source, 0);
        int destinationAddress = Bytes.i32(destination, 0);
        Bytes.u8(b, off, VERSION_AND_IHL);
        Bytes.u8(b, off + 1, trafficClass);
        Bytes.u16(b, off + 2, totalLength);
        Bytes.u16(b, off + IDENTIFICATION_OFFSET, identification);
        Bytes.u16(b, off + 6, flags);
        Bytes.u8(b, off + 8, ttl);
        Bytes.u8(b, off + 9, PROTOCOL_UDP);
        Bytes.u16(b, off + CHECKSUM_OFFSET, checksumOf(trafficClass, totalLength, identification, flags, ttl,
                sourceAddress, destinationAddress));
        Bytes.i32(b, off + SOURCE_OFFSET, sourceAddress);
        Bytes.i32(b, off + SOURCE_OFFSET + 4, destinationAddress);
    }

    /**
     * The checksum of the header {@link #write} writes, from its fields' values: the same RFC 1071 sum as
     * {@link #checksum}, without reading back the bytes just stored (a 4-byte load over smaller stores still
     * in flight cannot take their values and waits for them: a stall per frame on every frame sent).
     */
    static int checksumOf(int trafficClass, int totalLength, int identification, int flags, int ttl,
                          int sourceAddress, int destinationAddress) {
        long sum = (VERSION_AND_IHL << 8 | trafficClass) + totalLength + identification + flags
                + (ttl << 8 | PROTOCOL_UDP)
                + (sourceAddress >>> 16) + (sourceAddress & 0xFFFF)
                + (destinationAddress >>> 16) + (destinationAddress & 0xFFFF);
        return fold(sum);
    }

    /**
     * Rewrites the Identification and the flags (DF or none; fragment offset 0) of the header at
     * {@code off} and recomputes its checksum: for a receiver that learns them only afterwards (a
     * UDP socket does not show them; the ICRC, which covers them, tells them).
     */
    public static void writeIdentification(byte[] b, int off, int identification, boolean dontFragment) {
        Bytes.u16(b, off + IDENTIFICATION_OFFSET, identification);
        Bytes.u16(b, off + 6, dontFragment ? DONT_FRAGMENT : 0);
        fillChecksum(b, off);
    }

    /**
     * Adds {@code step} to the Identification of the header at {@code off} (modulo 2^16) and updates its checksum
     * incrementally, as RFC 1624 eq. 3 does: HC' = ~(~HC + ~m + m'), the same value a new sum gives.
     */
    static void addToIdentification(byte[] b, int off, int step) {
        int old = Bytes.u16(b, off + IDENTIFICATION_OFFSET);
        int updated = (old + step) & 0xFFFF;
        int sum = (~Bytes.u16(b, off + CHECKSUM_OFFSET) & 0xFFFF) + (~old & 0xFFFF) + updated;
        sum = (sum & 0xFFFF) + (sum >>> 16);
        sum = (sum & 0xFFFF) + (sum >>> 16);
        Bytes.u16(b, off + IDENTIFICATION_OFFSET, updated);
        Bytes.u16(b, off + CHECKSUM_OFFSET, ~sum & 0xFFFF);
    }

    /** TOS and TTL, and the checksum: what {@link IpHeader#writeVariantFields} rewrites. */
    static void writeVariantFields(byte[] b, int off, int trafficClass, int ttl) {
        Bytes.u8(b, off + 1, trafficClass);
        Bytes.u8(b, off + 8, ttl);
        fillChecksum(b, off);
    }

    /** The source address of the header at {@code off} as 32 bits, most significant byte first. */
    public static int sourceAt(byte[] b, int off) {
        return Bytes.i32(b, off + SOURCE_OFFSET);
    }

    private static void fillChecksum(byte[] b, int off) {
        Bytes.u16(b, off + CHECKSUM_OFFSET, 0);
        Bytes.u16(b, off + CHECKSUM_OFFSET, checksum(b, off));
    }

    /**
     * RFC 1071 one's-complement checksum of the 20-byte header at {@code off} (the checksum field
     * included as is: write it as 0 first to compute the value to store; a stored header sums to 0).
     */
    public static int checksum(byte[] b, int off) {
        // RFC 1071 §2(B): the one's complement sum may be taken over 32-bit words and folded to 16 bits.
        long sum = 0;
        for (int i = 0; i < LENGTH; i += 4) {
            sum += Bytes.i32(b, off + i) & 0xFFFF_FFFFL;
        }
        return fold((sum & 0xFFFF_FFFFL) + (sum >>> 32));
    }

    /** RFC 1071: a sum's carries folded back into its low 16 bits, complemented. */
    private static int fold(long sum) {
        while ((sum >>> 16) != 0) {
            sum = (sum & 0xFFFF) + (sum >>> 16);
        }
        return (int) ~sum & 0xFFFF;
    }

    private static Inet4Address address(byte[] b, int off) {
        try {
            return (Inet4Address) InetAddress.getByAddress(new byte[] {b[off], b[off + 1], b[off + 2], b[off + 3]});
        } catch (UnknownHostException impossible) {
            throw new AssertionError(impossible);
        }
    }
}
