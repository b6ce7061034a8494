package org.roce4j.wire.mad;

import java.util.Arrays;

/**
 * One field of a MAD as IBTA's message tables give it and Linux's {@code ibta_vol1_c12.h} encodes
 * it ({@code IBA_FIELD_BLOC(struct, byte, bit, width)}): it starts at bit {@code bit} of byte
 * {@code byteOffset} (bit 0 the most significant) and runs {@code width} bits, most significant
 * first, across byte boundaries if it must. Offsets count from the start of the area the table
 * describes (the CM's from the 232-byte data area after the MAD header). Each message keeps its
 * table as constants of this type, so encode and decode read the same positions.
 *
 * <p>Fields of 64 bits or less are numbers; wider ones (GIDs, private data) start on a byte and are
 * whole bytes.
 */
record Field(int byteOffset, int bitOffset, int width) {

    Field {
        if (byteOffset < 0 || bitOffset < 0 || bitOffset > 7 || width < 1) {
            throw new IllegalArgumentException("no such field: byte " + byteOffset + " bit " + bitOffset + " width " + width);
        }
        if (width > Long.SIZE && (bitOffset != 0 || width % 8 != 0)) {
            throw new IllegalArgumentException("a field wider than 64 bits is whole bytes");
        }
    }

    /** A field at {@code bit} of {@code byteOffset}, like {@code IBA_FIELD_BLOC}. */
    static Field bits(int byteOffset, int bit, int width) {
        return new Field(byteOffset, bit, width);
    }

    /** A field from the top of {@code byteOffset}, like {@code IBA_FIELD8/16/32/64_LOC}. */
    static Field at(int byteOffset, int width) {
        return new Field(byteOffset, 0, width);
    }

    /** Whole bytes, like {@code IBA_FIELD_MLOC} (GIDs, ARI, private data). */
    static Field bytes(int byteOffset, int length) {
        return new Field(byteOffset, 0, length * 8);
    }

    /** {@return the field's length in bytes (for whole-byte fields)} */
    int length() {
        return width / 8;
    }

    long get(byte[] buf, int base) {
        int start = (base + byteOffset) * 8 + bitOffset;
        long value = 0;
        for (int bit = start; bit < start + width; ) {
            int inByte = bit & 7;
            int take = Math.min(8 - inByte, start + width - bit);
            int bits = (buf[bit >>> 3] & 0xFF) >>> (8 - inByte - take) & (1 << take) - 1;
            value = value << take | bits;
            bit += take;
        }
        return value;
    }

    int getInt(byte[] buf, int base) {
        return (int) get(buf, base);
    }

    boolean getFlag(byte[] buf, int base) {
        return get(buf, base) != 0;
    }

    /** Writes the low {@code width} bits of {@code value}; the other bits of shared bytes stay. */
    void put(byte[] buf, int base, long value) {
        int start = (base + byteOffset) * 8 + bitOffset;
        int left = width;
        for (int bit = start; bit < start + width; ) {
            int inByte = bit & 7;
            int take = Math.min(8 - inByte, left);
            int shift = 8 - inByte - take;
            int mask = ((1 << take) - 1) << shift;
            int bits = (int) (value >>> (left - take)) << shift & mask;
            buf[bit >>> 3] = (byte) (buf[bit >>> 3] & ~mask | bits);
            bit += take;
            left -= take;
        }
    }

    void put(byte[] buf, int base, boolean flag) {
        put(buf, base, flag ? 1 : 0);
    }

    byte[] getBytes(byte[] buf, int base) {
        int from = base + byteOffset;
        return Arrays.copyOfRange(buf, from, from + length());
    }

    /** Copies {@code value} to the field's start and zero-fills the rest of it. */
    void putBytes(byte[] buf, int base, byte[] value) {
        int from = base + byteOffset;
        System.arraycopy(value, 0, buf, from, value.length);
        Arrays.fill(buf, from + value.length, from + length(), (byte) 0);
    }

    /** Rejects a value the field cannot carry (a programming error, not bad input). */
    void check(String name, long value) {
        if (width < Long.SIZE && (value < 0 || value >>> width != 0)) {
            throw new IllegalArgumentException(name + " " + value + " does not fit in " + width + " bits");
        }
    }

    /**
     * {@return {@code value} zero-padded to the field's length, which it must not exceed} The wire
     * carries no length: the receiver always reads the whole field, so the record holds it whole.
     */
    byte[] checkBytes(String name, byte[] value) {
        if (value == null) {
            throw new IllegalArgumentException(name + " is required");
        }
        if (value.length > length()) {
            throw new IllegalArgumentException(name + " is " + value.length + " bytes; the field holds " + length());
        }
        return Arrays.copyOf(value, length());
    }
}
