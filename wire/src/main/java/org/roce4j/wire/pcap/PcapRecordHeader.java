package org.roce4j.wire.pcap;

import java.nio.ByteBuffer;

/**
 * The 16-byte header before each record's data ("Packet Record", draft-ietf-opsawg-pcap §5):
 * timestamp seconds, timestamp fraction, captured length, original length. Each field is an
 * unsigned 32-bit integer, held here in a long.
 *
 * @param seconds seconds since 1970-01-01T00:00:00Z
 * @param fraction microseconds or nanoseconds within the second, as the file's magic says
 * @param capturedLength how many bytes of the packet follow in the file
 * @param originalLength how long the packet was on the wire
 */
record PcapRecordHeader(long seconds, long fraction, long capturedLength, long originalLength) {

    static final int LENGTH = 16;

    private static final long UINT32_MAX = 0xFFFF_FFFFL;
    private static final long NANOS_PER_SECOND = 1_000_000_000L;

    /** The latest instant a pcap record can carry: the seconds field is unsigned 32 bits. */
    static final long MAX_TIMESTAMP_NANOS = UINT32_MAX * NANOS_PER_SECOND + NANOS_PER_SECOND - 1;

    PcapRecordHeader {
        requireUint32("seconds", seconds);
        requireUint32("fraction", fraction);
        requireUint32("capturedLength", capturedLength);
        requireUint32("originalLength", originalLength);
    }

    /**
     * The header of a nanosecond-resolution record.
     *
     * @throws IllegalArgumentException if the timestamp is before 1970 or after 2106-02-07
     */
    static PcapRecordHeader ofNanos(long timestampNanos, int capturedLength, int originalLength) {
        if (timestampNanos < 0 || timestampNanos > MAX_TIMESTAMP_NANOS) {
            throw new IllegalArgumentException("timestamp " + timestampNanos
                    + " ns is outside what pcap holds: 0.." + MAX_TIMESTAMP_NANOS);
        }
        return new PcapRecordHeader(timestampNanos / NANOS_PER_SECOND,
                timestampNanos % NANOS_PER_SECOND, capturedLength, originalLength);
    }

    /**
     * Nanoseconds since the epoch. A fraction of a full second or more (which no conforming
     * writer produces) is added as it is rather than refused, as libpcap does.
     */
    long timestampNanos(TimestampResolution resolution) {
        return seconds * NANOS_PER_SECOND + fraction * resolution.nanosPerTick;
    }

    /** Writes the 16 bytes at {@code index} of {@code out}, in the buffer's byte order. */
    void encode(ByteBuffer out, int index) {
        out.putInt(index, (int) seconds);
        out.putInt(index + 4, (int) fraction);
        out.putInt(index + 8, (int) capturedLength);
        out.putInt(index + 12, (int) originalLength);
    }

    /** Reads the 16 bytes at {@code index} of {@code in}, in the buffer's byte order. */
    static PcapRecordHeader decode(ByteBuffer in, int index) {
        return new PcapRecordHeader(
                Integer.toUnsignedLong(in.getInt(index)),
                Integer.toUnsignedLong(in.getInt(index + 4)),
                Integer.toUnsignedLong(in.getInt(index + 8)),
                Integer.toUnsignedLong(in.getInt(index + 12)));
    }

    private static void requireUint32(String name, long value) {
        if (value < 0 || value > UINT32_MAX) {
            throw new IllegalArgumentException(name + " must be an unsigned 32-bit value, was "
                    + value);
        }
    }
}
