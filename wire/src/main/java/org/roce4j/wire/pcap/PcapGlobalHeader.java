package org.roce4j.wire.pcap;

import static org.roce4j.wire.pcap.PcapFormatException.Problem.PCAPNG;
import static org.roce4j.wire.pcap.PcapFormatException.Problem.TRUNCATED_GLOBAL_HEADER;
import static org.roce4j.wire.pcap.PcapFormatException.Problem.UNKNOWN_MAGIC;
import static org.roce4j.wire.pcap.PcapFormatException.Problem.UNSUPPORTED_VERSION;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Objects;

/**
 * The 24-byte header at the start of a classic pcap file ("File Header", draft-ietf-opsawg-pcap
 * §4): magic, version major/minor, two reserved words (once thiszone and sigfigs), snaplen, and
 * the link type with its additional information bits.
 *
 * @param byteOrder the byte order of every multi-byte field in the file, told by the magic
 * @param resolution what the timestamp fraction of each record counts, told by the magic
 * @param versionMajor 2 for every file this class accepts
 * @param versionMinor 3 or 4
 * @param snaplen the unsigned 32-bit SnapLen, as a long
 * @param linkTypeField the whole 32-bit "LinkType and additional information" word
 */
record PcapGlobalHeader(
        ByteOrder byteOrder,
        TimestampResolution resolution,
        int versionMajor,
        int versionMinor,
        long snaplen,
        int linkTypeField) {

    static final int LENGTH = 24;

    /** libpcap's MAXIMUM_SNAPLEN: what tcpdump captures at most, and what we write. */
    static final int MAXIMUM_SNAPLEN = 262_144;

    /** pcapng Section Header Block type; a palindrome, so byte order does not matter. */
    static final int PCAPNG_MAGIC = Pcapng.SECTION_HEADER;

    /** What {@link PcapWriter} writes: nanoseconds, 2.4, Ethernet, little-endian as on x86. */
    static final PcapGlobalHeader WRITTEN = written(LinkType.ETHERNET);

    /** What {@link PcapWriter} writes for packets of {@code linkType}. */
    static PcapGlobalHeader written(LinkType linkType) {
        return new PcapGlobalHeader(ByteOrder.LITTLE_ENDIAN, TimestampResolution.NANOSECONDS, 2, 4, MAXIMUM_SNAPLEN,
                linkType.value());
    }

    PcapGlobalHeader {
        Objects.requireNonNull(byteOrder);
        Objects.requireNonNull(resolution);
    }

    /** The link type proper: the low 16 bits of the field (draft-ietf-opsawg-pcap §4). */
    LinkType linkType() {
        return new LinkType(linkTypeField & 0xFFFF);
    }

    /** Writes the 24 bytes at {@code index} of {@code out}, in this header's byte order. */
    void encode(ByteBuffer out, int index) {
        ByteBuffer b = out.duplicate().order(byteOrder);
        b.putInt(index, resolution.magic);
        b.putShort(index + 4, (short) versionMajor);
        b.putShort(index + 6, (short) versionMinor);
        // draft-ietf-opsawg-pcap §4: Reserved1 and Reserved2 (once thiszone and sigfigs)
        // SHOULD be written as 0 and MUST be ignored by readers.
        b.putInt(index + 8, 0);
        b.putInt(index + 12, 0);
        b.putInt(index + 16, (int) snaplen);
        b.putInt(index + 20, linkTypeField);
    }

    /**
     * Reads a global header from the first {@code available} bytes of {@code bytes}, which the
     * caller read from offset 0 of the file (fewer than 24 if the file is that short).
     */
    static PcapGlobalHeader decode(byte[] bytes, int available) throws PcapFormatException {
        if (available < 4) {
            throw truncated(available);
        }
        int magic = ByteBuffer.wrap(bytes).order(ByteOrder.BIG_ENDIAN).getInt(0);
        if (magic == PCAPNG_MAGIC) {
            throw new PcapFormatException(PCAPNG, 0,
                    "this is pcapng, not classic pcap: read it with CaptureReader or PcapngReader");
        }
        ByteOrder order = null;
        TimestampResolution resolution = null;
        for (TimestampResolution r : TimestampResolution.values()) {
            if (magic == r.magic) {
                order = ByteOrder.BIG_ENDIAN;
                resolution = r;
            } else if (magic == Integer.reverseBytes(r.magic)) {
                order = ByteOrder.LITTLE_ENDIAN;
                resolution = r;
            }
        }
        if (resolution == null) {
            throw new PcapFormatException(UNKNOWN_MAGIC, 0, String.format(
                    "not a pcap file: unknown magic number %02x %02x %02x %02x",
                    bytes[0], bytes[1], bytes[2], bytes[3]));
        }
        if (available < LENGTH) {
            throw truncated(available);
        }
        ByteBuffer b = ByteBuffer.wrap(bytes, 0, LENGTH).order(order);
        int major = Short.toUnsignedInt(b.getShort(4));
        int minor = Short.toUnsignedInt(b.getShort(6));
        // 2.4 is current; 2.3 differs only in history. Before 2.3 caplen and len could be
        // swapped (libpcap sf-pcap.c), and libpcap refuses other majors: so do we.
        if (major != 2 || minor < 3 || minor > 4) {
            throw new PcapFormatException(UNSUPPORTED_VERSION, 0,
                    "unsupported pcap version " + major + "." + minor + " (2.3 and 2.4 are)");
        }
        return new PcapGlobalHeader(order, resolution, major, minor,
                Integer.toUnsignedLong(b.getInt(16)), b.getInt(20));
    }

    private static PcapFormatException truncated(int available) {
        return new PcapFormatException(TRUNCATED_GLOBAL_HEADER, 0, available == 0
                ? "empty file: no pcap global header"
                : "global header truncated: the file ends after " + available + " of "
                        + LENGTH + " bytes");
    }
}
