package org.roce4j.wire.pcap;

import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * One packet read from a capture of either format ({@link CaptureReader}): a classic pcap record, or a
 * pcapng Enhanced, Simple or (obsolete) Packet Block with the interface it was captured on.
 *
 * <p>{@code data} is the captured bytes, shorter than {@code originalLength} when the capture was
 * truncated; the array is not copied. Equality compares the bytes, not the array.
 *
 * @param interfaceId    the pcapng interface (0 in a classic pcap file, which has one)
 * @param linkType       that interface's link type
 * @param timestampNanos nanoseconds since 1970-01-01T00:00:00Z, whatever resolution the file had; a pcapng
 *                       Simple Packet Block has no timestamp and gives 0
 * @param originalLength how long the packet was on the wire
 * @param data           the captured bytes
 * @param comments       the packet's {@code opt_comment} options, in file order (none in classic pcap)
 */
public record CapturedPacket(int interfaceId, LinkType linkType, long timestampNanos, int originalLength, byte[] data,
                             List<String> comments) {

    /**
     * Checks the components and keeps an unmodifiable copy of the comments; {@code data} is kept, not copied.
     *
     * @throws NullPointerException if a component is null
     * @throws IllegalArgumentException if the interface, the timestamp or the original length is negative
     */
    public CapturedPacket {
        Objects.requireNonNull(linkType, "linkType");
        Objects.requireNonNull(data, "data");
        comments = List.copyOf(comments);
        if (interfaceId < 0 || timestampNanos < 0 || originalLength < 0) {
            throw new IllegalArgumentException("interfaceId, timestampNanos and originalLength must be >= 0, were "
                    + interfaceId + ", " + timestampNanos + ", " + originalLength);
        }
    }

    /** {@return the packet as a classic pcap record: its timestamp, original length and bytes} */
    public PcapRecord toPcapRecord() {
        return new PcapRecord(timestampNanos, originalLength, data);
    }

    /** {@return whether fewer bytes were captured than the packet had on the wire} */
    public boolean truncated() {
        return data.length < originalLength;
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof CapturedPacket that && interfaceId == that.interfaceId
                && linkType.equals(that.linkType) && timestampNanos == that.timestampNanos
                && originalLength == that.originalLength && Arrays.equals(data, that.data)
                && comments.equals(that.comments);
    }

    @Override
    public int hashCode() {
        return Objects.hash(interfaceId, linkType, timestampNanos, originalLength, Arrays.hashCode(data), comments);
    }

    @Override
    public String toString() {
        return "CapturedPacket[interfaceId=" + interfaceId + ", linkType=" + linkType.value() + ", timestampNanos="
                + timestampNanos + ", originalLength=" + originalLength + ", data=" + data.length + " bytes, comments="
                + comments + "]";
    }
}
