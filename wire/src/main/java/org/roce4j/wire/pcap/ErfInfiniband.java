package org.roce4j.wire.pcap;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Optional;

/**
 * InfiniBand packets in ERF records, as ibdump writes them into a pcap of {@link LinkType#ERF}
 * (ibdump.h: DLT_ERF, ERF_TYPE_INFINIBAND; Wireshark's wiretap/erf.c reads them). The 16-byte ERF
 * header: timestamp (little-endian 64-bit fixed point, seconds in the upper 32 bits, the binary
 * fraction in the lower), type (21, InfiniBand), flags, rlen (the record's length, header
 * included), lctr (loss counter) and wlen (the packet's length on the wire), the last three
 * big-endian; then the packet from its LRH through its VCRC.
 */
public final class ErfInfiniband {
    /** ERF_TYPE_INFINIBAND. */
    static final int TYPE_INFINIBAND = 21;
    /** ERF_TYPE_INFINIBAND_LINK: the same packet, as Wireshark reads it. */
    static final int TYPE_INFINIBAND_LINK = 25;
    static final int HEADER_LENGTH = 16;
    /** ERF flags: varying record length (bit 2), as capture cards and ibdump set it; interface 0. */
    private static final int FLAGS_VARYING_LENGTH = 0x04;
    /** The extension-header bit of the type byte: extension headers follow the 16 bytes. */
    private static final int TYPE_EXTENSION = 0x80;

    private ErfInfiniband() {}

    /** The ERF record holding {@code packet} (LRH through VCRC) captured at {@code timestampNanos}. */
    public static byte[] wrap(long timestampNanos, byte[] packet) {
        if (packet.length > 0xFFFF - HEADER_LENGTH) {
            throw new IllegalArgumentException(packet.length + " bytes do not fit an ERF record");
        }
        long seconds = Math.floorDiv(timestampNanos, 1_000_000_000L);
        long nanos = Math.floorMod(timestampNanos, 1_000_000_000L);
        // The fraction rounded up, so that reading it back to nanoseconds floors to the same value.
        long fraction = ((nanos << 32) + 999_999_999L) / 1_000_000_000L;
        ByteBuffer b = ByteBuffer.allocate(HEADER_LENGTH + packet.length);
        b.order(ByteOrder.LITTLE_ENDIAN).putLong(0, seconds << 32 | fraction);
        b.order(ByteOrder.BIG_ENDIAN);
        b.put(8, (byte) TYPE_INFINIBAND).put(9, (byte) FLAGS_VARYING_LENGTH)
                .putShort(10, (short) (HEADER_LENGTH + packet.length)).putShort(12, (short) 0)
                .putShort(14, (short) packet.length).put(HEADER_LENGTH, packet);
        return b.array();
    }

    /**
     * The InfiniBand packet in an ERF record, or empty when the record is of another ERF type, has
     * extension headers, or is shorter than its header says.
     */
    public static Optional<byte[]> unwrap(byte[] record) {
        if (record.length < HEADER_LENGTH) {
            return Optional.empty();
        }
        int type = record[8] & 0xFF;
        if ((type & TYPE_EXTENSION) != 0 || type != TYPE_INFINIBAND && type != TYPE_INFINIBAND_LINK) {
            return Optional.empty();
        }
        int wireLength = (record[14] & 0xFF) << 8 | record[15] & 0xFF;
        int end = Math.min(record.length, HEADER_LENGTH + wireLength);
        byte[] packet = new byte[end - HEADER_LENGTH];
        System.arraycopy(record, HEADER_LENGTH, packet, 0, packet.length);
        return Optional.of(packet);
    }
}
