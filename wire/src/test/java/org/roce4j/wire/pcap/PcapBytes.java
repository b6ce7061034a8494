package org.roce4j.wire.pcap;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * Builds pcap files byte by byte for tests, independently of the production encoders, so that a
 * wrong encoder and a wrong decoder cannot agree with each other unnoticed.
 */
final class PcapBytes {

    static final int MICROSECOND_MAGIC = 0xA1B2C3D4;
    static final int NANOSECOND_MAGIC = 0xA1B23C4D;

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteOrder order;

    private PcapBytes(ByteOrder order) {
        this.order = order;
    }

    /** A global header with every field chosen by the caller. */
    static PcapBytes header(ByteOrder order, int magic, int major, int minor, int snaplen,
            int linkType) {
        PcapBytes file = new PcapBytes(order);
        ByteBuffer b = ByteBuffer.allocate(24).order(order);
        b.putInt(magic).putShort((short) major).putShort((short) minor)
                .putInt(0).putInt(0).putInt(snaplen).putInt(linkType);
        file.out.writeBytes(b.array());
        return file;
    }

    /** Version 2.4, snaplen 262144, Ethernet, microsecond timestamps. */
    static PcapBytes microsecondFile(ByteOrder order) {
        return header(order, MICROSECOND_MAGIC, 2, 4, 262_144, 1);
    }

    /** Version 2.4, snaplen 262144, Ethernet, nanosecond timestamps. */
    static PcapBytes nanosecondFile(ByteOrder order) {
        return header(order, NANOSECOND_MAGIC, 2, 4, 262_144, 1);
    }

    /** A record header with every field chosen by the caller, then {@code data}. */
    PcapBytes record(int seconds, int fraction, int capturedLength, int originalLength,
            byte[] data) {
        ByteBuffer b = ByteBuffer.allocate(16).order(order);
        b.putInt(seconds).putInt(fraction).putInt(capturedLength).putInt(originalLength);
        out.writeBytes(b.array());
        out.writeBytes(data);
        return this;
    }

    /** A whole record: captured length = original length = {@code data.length}. */
    PcapBytes record(int seconds, int fraction, byte[] data) {
        return record(seconds, fraction, data.length, data.length, data);
    }

    byte[] bytes() {
        return out.toByteArray();
    }

    /** The file without its last {@code count} bytes. */
    byte[] withoutLast(int count) {
        byte[] all = bytes();
        return Arrays.copyOf(all, all.length - count);
    }

    /** {@code length} bytes counting up from {@code first}, wrapping at 256. */
    static byte[] frame(int length, int first) {
        byte[] frame = new byte[length];
        for (int i = 0; i < length; i++) {
            frame[i] = (byte) (first + i);
        }
        return frame;
    }
}
