package org.roce4j.wire;

import java.util.HexFormat;

/** A 48-bit Ethernet address. */
public record MacAddress(long value) {
    public static final MacAddress ZERO = new MacAddress(0);

    public MacAddress {
        if ((value & ~0xFFFF_FFFF_FFFFL) != 0) {
            throw new IllegalArgumentException("MAC address wider than 48 bits: " + Long.toHexString(value));
        }
    }

    /** Parses "02:00:00:00:00:01" (also accepts '-' separators). */
    public static MacAddress parse(String text) {
        String[] parts = text.split("[:-]");
        if (parts.length != 6) {
            throw new IllegalArgumentException("not a MAC address: " + text);
        }
        long value = 0;
        for (String part : parts) {
            value = value << 8 | Integer.parseInt(part, 16) & 0xFF;
        }
        return new MacAddress(value);
    }

    static MacAddress decode(byte[] b, int off) {
        return new MacAddress((long) Bytes.u16(b, off) << 32 | Integer.toUnsignedLong(Bytes.i32(b, off + 2)));
    }

    void encode(byte[] b, int off) {
        write(b, off, value);
    }

    /** Writes a 48-bit address held in the low bits of {@code value}. */
    static void write(byte[] b, int off, long value) {
        Bytes.u16(b, off, (int) (value >>> 32));
        Bytes.i32(b, off + 2, (int) value);
    }

    @Override
    public String toString() {
        byte[] bytes = new byte[6];
        encode(bytes, 0);
        return HexFormat.ofDelimiter(":").formatHex(bytes);
    }
}
