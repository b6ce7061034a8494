package org.roce4j.wire.pcap;

import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Writes a pcapng file (draft-ietf-opsawg-pcapng): one little-endian section, interface 0 an Ethernet
 * interface, more interfaces by {@link #addInterface}, every interface with nanosecond timestamps
 * (if_tsresol 9) and snaplen {@value PcapWriter#SNAPLEN}; each packet an Enhanced Packet Block, with
 * comments ({@code opt_comment}) when given, such as what a fault injector did to the frame.
 *
 * <p>As {@link PcapWriter}: the output depends only on what is written (no clock, no host name or
 * application option), so the same packets give the same bytes. Not thread-safe.
 */
public final class PcapngWriter implements CaptureWriter {

    /** if_tsresol 9: timestamps count nanoseconds. */
    private static final byte NANOSECONDS = 9;
    /** §4.3: interface ID, timestamp (high, low), captured and original lengths, before the packet data. */
    private static final int ENHANCED_PACKET_FIELDS = 20;

    private final OutputStream out;
    private final List<LinkType> interfaces = new ArrayList<>();
    /** Blocks made but not yet written: the constructor's and addInterface's (they throw no IOException). */
    private final List<Block> pending = new ArrayList<>();
    private boolean closed;
    /** The section and interface blocks already written out. */
    private long writtenHeaderLength;

    /**
     * Starts a capture on {@code out}: its Section Header Block and interface 0 (Ethernet). Closing the
     * writer closes {@code out}.
     *
     * @param out where the file goes
     */
    public PcapngWriter(OutputStream out) {
        this.out = new BufferedOutputStream(Objects.requireNonNull(out, "out"), PcapWriter.BUFFER_SIZE);
        Block section = new Block(Pcapng.SECTION_HEADER, 16);
        section.body.putInt(Pcapng.BYTE_ORDER_MAGIC).putShort((short) Pcapng.MAJOR_VERSION).putShort((short) 0)
                .putLong(-1); // §4.1 section length: not given
        pending.add(section);
        addInterface(LinkType.ETHERNET);
    }

    /**
     * Creates (or truncates) {@code file} and starts a capture in it.
     *
     * @param file the file to write
     * @return a writer that closes the file when closed
     * @throws IOException if the file cannot be opened for writing
     */
    public static PcapngWriter create(Path file) throws IOException {
        return new PcapngWriter(Files.newOutputStream(file));
    }

    /**
     * Describes one more interface, whose packets {@link #write(int, long, byte[], int, int, List)} then
     * names by the number returned.
     *
     * @param linkType what its packets start with
     * @return its interface ID: 0 for the first (the constructor's Ethernet), then 1, 2, ...
     */
    public int addInterface(LinkType linkType) {
        Block description = new Block(Pcapng.INTERFACE_DESCRIPTION, 8 + 8 + 4);
        description.body.putShort((short) linkType.value()).putShort((short) 0).putInt(PcapWriter.SNAPLEN);
        description.option(Pcapng.IF_TSRESOL, new byte[] {NANOSECONDS});
        description.endOfOptions();
        pending.add(description);
        interfaces.add(linkType);
        return interfaces.size() - 1;
    }

    /**
     * Writes a whole Ethernet frame on interface 0, without comments.
     *
     * @param timestampNanos nanoseconds since 1970-01-01T00:00:00Z, 0 or more
     * @param frame the frame, from the destination MAC
     * @throws IOException if the writer is closed or the stream fails
     */
    public void write(long timestampNanos, byte[] frame) throws IOException {
        write(0, timestampNanos, frame, 0, frame.length, List.of());
    }

    /**
     * Writes one Enhanced Packet Block holding {@code frame[offset .. offset+length)}, whose original length is
     * {@code length}; only the first {@value PcapWriter#SNAPLEN} bytes are captured.
     *
     * @param interfaceId an interface of this writer
     * @param timestampNanos nanoseconds since 1970-01-01T00:00:00Z, 0 or more
     * @param frame the array holding the packet
     * @param offset where it starts in {@code frame}
     * @param length its length, which is its original length
     * @param comments one {@code opt_comment} each, in this order (UTF-8, at most 65535 bytes each)
     * @throws IllegalArgumentException if the interface is unknown, the timestamp negative or a comment too
     *     long (nothing is written)
     * @throws IndexOutOfBoundsException if the slice is not inside {@code frame}
     * @throws IOException if the writer is closed or the stream fails
     */
    public void write(int interfaceId, long timestampNanos, byte[] frame, int offset, int length,
                      List<String> comments) throws IOException {
        Objects.checkFromIndexSize(offset, length, frame.length);
        if (interfaceId < 0 || interfaceId >= interfaces.size() || timestampNanos < 0) {
            throw new IllegalArgumentException("interface " + interfaceId + " of " + interfaces.size()
                    + ", timestamp " + timestampNanos + " ns: an interface of this writer and a time since 1970");
        }
        List<byte[]> texts = new ArrayList<>();
        for (String comment : comments) {
            byte[] text = comment.getBytes(StandardCharsets.UTF_8);
            if (text.length > 0xFFFF) {
                throw new IllegalArgumentException("a comment of " + text.length + " bytes; an option holds 65535");
            }
            texts.add(text);
        }
        ensureOpen();
        int captured = Math.min(length, PcapWriter.SNAPLEN);
        Block packet = new Block(Pcapng.ENHANCED_PACKET, ENHANCED_PACKET_FIELDS + Pcapng.padded(captured)
                + optionsLength(texts));
        packet.body.putInt(interfaceId).putInt((int) (timestampNanos >>> 32)).putInt((int) timestampNanos)
                .putInt(captured).putInt(length).put(frame, offset, captured);
        packet.pad();
        if (!texts.isEmpty()) {
            for (byte[] text : texts) {
                packet.option(Pcapng.OPT_COMMENT, text);
            }
            packet.endOfOptions();
        }
        writePending();
        packet.writeTo(out);
    }

    /** Writes the frame on interface 0; see {@link #write(int, long, byte[], int, int, List)}. */
    @Override
    public void write(long timestampNanos, byte[] frame, int offset, int length, List<String> comments)
            throws IOException {
        write(0, timestampNanos, frame, offset, length, comments);
    }

    @Override
    public long headerLength() {
        long total = 0;
        for (Block block : pending) {
            total += block.length();
        }
        return total + writtenHeaderLength;
    }

    @Override
    public long recordLength(int length, List<String> comments) {
        List<byte[]> texts = new ArrayList<>(comments.size());
        for (String comment : comments) {
            texts.add(comment.getBytes(StandardCharsets.UTF_8));
        }
        return Pcapng.BLOCK_HEADER + ENHANCED_PACKET_FIELDS + Pcapng.padded(Math.min(length, PcapWriter.SNAPLEN))
                + optionsLength(texts) + Pcapng.BLOCK_TRAILER;
    }

    /** §3.5 options: each a code, a length and the padded value, then opt_endofopt; none at all when there are none. */
    private static int optionsLength(List<byte[]> texts) {
        if (texts.isEmpty()) {
            return 0;
        }
        int bytes = 4;
        for (byte[] text : texts) {
            bytes += 4 + Pcapng.padded(text.length);
        }
        return bytes;
    }

    /**
     * Pushes everything written so far to the stream, and flushes the stream.
     *
     * @throws IOException if the writer is closed or the stream fails
     */
    @Override
    public void flush() throws IOException {
        ensureOpen();
        writePending();
        out.flush();
    }

    /**
     * Flushes and closes the stream. Closing twice does nothing.
     *
     * @throws IOException if the stream fails; it is closed all the same
     */
    @Override
    public void close() throws IOException {
        if (closed) {
            return;
        }
        closed = true;
        try (out) {
            writePending();
        }
    }

    private void writePending() throws IOException {
        for (Block block : pending) {
            block.writeTo(out);
            writtenHeaderLength += block.length();
        }
        pending.clear();
    }

    private void ensureOpen() throws IOException {
        if (closed) {
            throw new IOException("PcapngWriter is closed");
        }
    }

    /** One block being made: its body is filled up to the capacity given, then type and lengths frame it. */
    private static final class Block {
        final int type;
        final ByteBuffer body;

        Block(int type, int bodyCapacity) {
            this.type = type;
            this.body = ByteBuffer.allocate(bodyCapacity + 8 + 4 /* an option or its end */)
                    .order(ByteOrder.LITTLE_ENDIAN);
        }

        void option(int code, byte[] value) {
            body.putShort((short) code).putShort((short) value.length).put(value);
            pad();
        }

        void endOfOptions() {
            body.putInt(0); // opt_endofopt, length 0
        }

        void pad() {
            while (body.position() % 4 != 0) {
                body.put((byte) 0);
            }
        }

        int length() {
            return Pcapng.BLOCK_HEADER + body.position() + Pcapng.BLOCK_TRAILER;
        }

        void writeTo(OutputStream out) throws IOException {
            int total = length();
            ByteBuffer frame = ByteBuffer.allocate(Pcapng.BLOCK_HEADER).order(ByteOrder.LITTLE_ENDIAN)
                    .putInt(type).putInt(total);
            out.write(frame.array());
            out.write(body.array(), 0, body.position());
            out.write(frame.clear().putInt(total).array(), 0, Pcapng.BLOCK_TRAILER);
        }
    }
}
