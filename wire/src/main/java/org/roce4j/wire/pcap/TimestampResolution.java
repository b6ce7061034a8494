package org.roce4j.wire.pcap;

/**
 * What the second timestamp field of a record header counts, as told by the file's magic number
 * (draft-ietf-opsawg-pcap §4: 0xA1B2C3D4 for microseconds, 0xA1B23C4D for nanoseconds).
 */
enum TimestampResolution {
    MICROSECONDS(0xA1B2C3D4, 1_000L),
    NANOSECONDS(0xA1B23C4D, 1L);

    /** The magic number as written in the file's own byte order. */
    final int magic;

    /** Nanoseconds in one tick of the fraction field. */
    final long nanosPerTick;

    TimestampResolution(int magic, long nanosPerTick) {
        this.magic = magic;
        this.nanosPerTick = nanosPerTick;
    }
}
