package org.roce4j.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.HexFormat;
import java.util.SplittableRandom;

/** Test data in native memory: seeded patterns written, read back and compared byte for byte. */
final class Bytes {
    /** What untouched destination memory holds, so that a stray write shows. */
    static final byte CANARY = (byte) 0xEE;

    private Bytes() {
    }

    /** {@code length} pseudo-random bytes from {@code seed} (none of them the canary, so a missed copy shows). */
    static byte[] pattern(long seed, int length) {
        SplittableRandom random = new SplittableRandom(seed);
        byte[] bytes = new byte[length];
        for (int i = 0; i < length; i++) {
            byte b = (byte) random.nextInt(256);
            bytes[i] = b == CANARY ? 0x11 : b;
        }
        return bytes;
    }

    static void write(MemorySegment segment, long offset, byte[] bytes) {
        MemorySegment.copy(bytes, 0, segment, ValueLayout.JAVA_BYTE, offset, bytes.length);
    }

    static byte[] read(MemorySegment segment, long offset, int length) {
        byte[] bytes = new byte[length];
        MemorySegment.copy(segment, ValueLayout.JAVA_BYTE, offset, bytes, 0, length);
        return bytes;
    }

    static void canary(MemorySegment segment) {
        segment.fill(CANARY);
    }

    /** The memory at {@code offset} holds exactly {@code expected}. */
    static void assertAt(MemorySegment segment, long offset, byte[] expected, String what) {
        byte[] actual = read(segment, offset, expected.length);
        if (!java.util.Arrays.equals(actual, expected)) {
            int first = java.util.Arrays.mismatch(actual, expected);
            throw new AssertionError(what + ": " + expected.length + " bytes at offset " + offset
                    + " differ first at byte " + first + " (expected 0x" + hex(expected[first]) + ", found 0x"
                    + hex(actual[first]) + ")");
        }
    }

    /** Nothing was written into {@code [offset, offset + length)}: it still holds the canary. */
    static void assertUntouched(MemorySegment segment, long offset, long length, String what) {
        for (long i = 0; i < length; i++) {
            byte b = segment.get(ValueLayout.JAVA_BYTE, offset + i);
            assertThat(b).as("%s: byte %d was written (0x%s)", what, offset + i, hex(b)).isEqualTo(CANARY);
        }
    }

    static long u64(MemorySegment segment, long offset) {
        return segment.get(ValueLayout.JAVA_LONG, offset);
    }

    static void u64(MemorySegment segment, long offset, long value) {
        segment.set(ValueLayout.JAVA_LONG, offset, value);
    }

    static String hex(byte b) {
        return HexFormat.of().toHexDigits(b);
    }
}
