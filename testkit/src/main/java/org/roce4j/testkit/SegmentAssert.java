package org.roce4j.testkit;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.HexFormat;

import org.assertj.core.api.AbstractAssert;

/**
 * Assertions on memory ({@link MemorySegment}): what RDMA left in a buffer. A failure shows the
 * first differing offset and the bytes around it in hex.
 */
public final class SegmentAssert extends AbstractAssert<SegmentAssert, MemorySegment> {
    private static final int SHOWN = 16;

    SegmentAssert(MemorySegment actual) {
        super(actual, SegmentAssert.class);
    }

    /**
     * {@return this assertion, after checking the bytes at {@code offset}}
     *
     * @param offset   where the expected bytes start
     * @param expected the bytes
     */
    public SegmentAssert hasBytesAt(long offset, byte... expected) {
        isNotNull();
        if (offset < 0 || offset + expected.length > actual.byteSize()) {
            failWithMessage("%nexpected %d bytes at offset %d but the segment has %d bytes", expected.length, offset,
                    actual.byteSize());
        }
        for (int i = 0; i < expected.length; i++) {
            byte was = actual.get(ValueLayout.JAVA_BYTE, offset + i);
            if (was != expected[i]) {
                int from = Math.max(0, i - 4);
                int to = Math.min(expected.length, from + SHOWN);
                byte[] wasBytes = actual.asSlice(offset + from, to - from).toArray(ValueLayout.JAVA_BYTE);
                failWithMessage("%nfirst difference at offset %d (0x%x): expected 0x%02x but was 0x%02x%n"
                                + "  expected at %d: %s%n  actual   at %d: %s",
                        offset + i, offset + i, expected[i] & 0xFF, was & 0xFF,
                        offset + from, hex(expected, from, to), offset + from, hex(wasBytes, 0, wasBytes.length));
            }
        }
        return this;
    }

    /**
     * {@return this assertion, after checking the bytes at {@code offset} equal another segment's}
     *
     * @param offset   where the expected bytes start
     * @param expected the bytes
     */
    public SegmentAssert hasBytesAt(long offset, MemorySegment expected) {
        return hasBytesAt(offset, expected.toArray(ValueLayout.JAVA_BYTE));
    }

    /**
     * {@return this assertion, after checking {@code length} bytes at {@code offset} all equal {@code value}}
     *
     * @param offset where the range starts
     * @param length how many bytes
     * @param value  the byte every one should be
     */
    public SegmentAssert isFilledWith(long offset, int length, byte value) {
        byte[] expected = new byte[length];
        java.util.Arrays.fill(expected, value);
        return hasBytesAt(offset, expected);
    }

    /**
     * {@return this assertion, after checking the 8-byte value in host order at {@code offset}: what
     * an atomic operation reads and writes}
     *
     * @param offset   where the value is (8-byte aligned for atomics)
     * @param expected the value
     */
    public SegmentAssert hasLongAt(long offset, long expected) {
        isNotNull();
        long was = actual.get(ValueLayout.JAVA_LONG_UNALIGNED, offset);
        if (was != expected) {
            failWithMessage("%nexpected the 8-byte value at offset %d to be %d (0x%x) but it is %d (0x%x)",
                    offset, expected, expected, was, was);
        }
        return this;
    }

    private static String hex(byte[] bytes, int from, int to) {
        return HexFormat.ofDelimiter(" ").formatHex(bytes, from, to);
    }
}
