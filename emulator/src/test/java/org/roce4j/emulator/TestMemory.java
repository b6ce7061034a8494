package org.roce4j.emulator;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import static org.assertj.core.api.Assertions.assertThat;

/** Recognisable contents for test memory, and byte-for-byte comparison of two ranges. */
final class TestMemory {
    private TestMemory() {
    }

    /** A pattern that differs per byte and per seed, and does not repeat within 256 bytes. */
    static void fill(MemorySegment memory, long offset, int length, int seed) {
        for (int i = 0; i < length; i++) {
            memory.set(ValueLayout.JAVA_BYTE, offset + i, (byte) (i * 31 + seed + (i >>> 8)));
        }
    }

    static void assertSameBytes(MemorySegment x, long xOffset, MemorySegment y, long yOffset, int length) {
        assertThat(MemorySegment.mismatch(x, xOffset, xOffset + length, y, yOffset, yOffset + length))
                .as("first differing byte").isEqualTo(-1L);
    }
}
