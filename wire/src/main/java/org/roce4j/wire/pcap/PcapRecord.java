package org.roce4j.wire.pcap;

import java.util.Arrays;
import java.util.Objects;

/**
 * One packet read from a capture.
 *
 * <p>{@code data} is the captured bytes; it is shorter than {@code originalLength} when the
 * capture was truncated to its snaplen. The array is not copied: a {@link PcapReader} hands each
 * record a fresh array that belongs to the caller. Equality compares the bytes, not the array.
 *
 * @param timestampNanos when the packet was captured, in nanoseconds since
 *     1970-01-01T00:00:00Z, whatever resolution the file had
 * @param originalLength how long the packet was on the wire
 * @param data the captured bytes
 */
public record PcapRecord(long timestampNanos, int originalLength, byte[] data) {

    /**
     * Checks the components; {@code data} is kept, not copied.
     *
     * @throws NullPointerException if {@code data} is null
     * @throws IllegalArgumentException if the timestamp or the original length is negative
     */
    public PcapRecord {
        Objects.requireNonNull(data, "data");
        if (timestampNanos < 0) {
            throw new IllegalArgumentException(
                    "timestampNanos must be >= 0, was " + timestampNanos);
        }
        if (originalLength < 0) {
            throw new IllegalArgumentException(
                    "originalLength must be >= 0, was " + originalLength);
        }
    }

    /** {@return whether fewer bytes were captured than the packet had on the wire} */
    public boolean truncated() {
        return data.length < originalLength;
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof PcapRecord that
                && timestampNanos == that.timestampNanos
                && originalLength == that.originalLength
                && Arrays.equals(data, that.data);
    }

    @Override
    public int hashCode() {
        return Objects.hash(timestampNanos, originalLength, Arrays.hashCode(data));
    }

    @Override
    public String toString() {
        return "PcapRecord[timestampNanos=" + timestampNanos + ", originalLength=" + originalLength
                + ", data=" + data.length + " bytes]";
    }
}
