package org.roce4j.wire.pcap;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;

/**
 * Writes a classic pcap file: nanosecond timestamps (magic 0xA1B23C4D), version 2.4, snaplen
 * {@value #SNAPLEN}, {@link LinkType#ETHERNET} unless told otherwise, little-endian as libpcap writes on x86.
 *
 * <p>The output depends only on what is written: no clock is read, so the same frames with the
 * same timestamps give the same bytes. Output is buffered; {@link #flush()} or {@link #close()}
 * pushes it to the stream. Not thread-safe.
 */
public final class PcapWriter implements CaptureWriter {

    /** Frames longer than this are truncated to it; their original length is kept. */
    public static final int SNAPLEN = PcapGlobalHeader.MAXIMUM_SNAPLEN;

    /** The JDK's default for buffered streams; a larger one slows every short-lived writer. */
    static final int BUFFER_SIZE = 8 * 1024;

    private final OutputStream out;
    private final byte[] buffer = new byte[BUFFER_SIZE];
    private final ByteBuffer view = ByteBuffer.wrap(buffer).order(ByteOrder.LITTLE_ENDIAN);
    private int used;
    private boolean closed;

    /**
     * Starts a capture on {@code out}; the global header goes out with the first flush. Closing
     * the writer closes {@code out}.
     *
     * @param out where the file goes
     */
    public PcapWriter(OutputStream out) {
        this(out, LinkType.ETHERNET);
    }

    /**
     * Starts a capture of packets of {@code linkType} on {@code out}, e.g. {@link LinkType#INFINIBAND}
     * for InfiniBand packets from their LRH; otherwise as {@link #PcapWriter(OutputStream)}.
     *
     * @param out where the file goes
     * @param linkType the link type of every record
     */
    public PcapWriter(OutputStream out, LinkType linkType) {
        this.out = Objects.requireNonNull(out, "out");
        PcapGlobalHeader.written(linkType).encode(view, 0);
        used = PcapGlobalHeader.LENGTH;
    }

    /**
     * Creates (or truncates) {@code file} and starts a capture in it.
     *
     * @param file the file to write
     * @return a writer that closes the file when closed
     * @throws IOException if the file cannot be opened for writing
     */
    public static PcapWriter create(Path file) throws IOException {
        return new PcapWriter(Files.newOutputStream(file));
    }

    /**
     * Creates (or truncates) {@code file} and starts a capture of packets of {@code linkType} in it.
     *
     * @param file the file to write
     * @param linkType the link type of every record
     * @return a writer that closes the file when closed
     * @throws IOException if the file cannot be opened for writing
     */
    public static PcapWriter create(Path file, LinkType linkType) throws IOException {
        return new PcapWriter(Files.newOutputStream(file), linkType);
    }

    /**
     * Writes a whole frame; see {@link #write(long, byte[], int, int)}.
     *
     * @param timestampNanos nanoseconds since 1970-01-01T00:00:00Z
     * @param frame the frame, from its first byte (the destination MAC for Ethernet)
     * @throws IOException if the writer is closed or the stream fails
     */
    public void write(long timestampNanos, byte[] frame) throws IOException {
        write(timestampNanos, frame, 0, frame.length);
    }

    /**
     * Writes one record holding {@code frame[offset .. offset+length)}, whose original length is
     * {@code length}; only the first {@value #SNAPLEN} bytes are captured.
     *
     * @param timestampNanos nanoseconds since 1970-01-01T00:00:00Z, up to 2106-02-07 (the pcap
     *     seconds field is unsigned 32 bits)
     * @param frame the array holding the frame
     * @param offset where the frame starts in {@code frame}
     * @param length the frame's length, which is its original length
     * @throws IllegalArgumentException if the timestamp is out of that range (nothing is written)
     * @throws IndexOutOfBoundsException if the slice is not inside {@code frame}
     * @throws IOException if the writer is closed or the stream fails
     */
    public void write(long timestampNanos, byte[] frame, int offset, int length)
            throws IOException {
        Objects.checkFromIndexSize(offset, length, frame.length);
        ensureOpen();
        int captured = Math.min(length, SNAPLEN);
        PcapRecordHeader header = PcapRecordHeader.ofNanos(timestampNanos, captured, length);
        if (buffer.length - used < PcapRecordHeader.LENGTH) {
            drainBuffer();
        }
        header.encode(view, used);
        used += PcapRecordHeader.LENGTH;
        if (buffer.length - used < captured) {
            drainBuffer();
            if (captured >= buffer.length) {
                out.write(frame, offset, captured);
                return;
            }
        }
        System.arraycopy(frame, offset, buffer, used, captured);
        used += captured;
    }

    /** Writes the frame as {@link #write(long, byte[], int, int)}; classic pcap has no place for the comments. */
    @Override
    public void write(long timestampNanos, byte[] frame, int offset, int length, List<String> comments)
            throws IOException {
        write(timestampNanos, frame, offset, length);
    }

    @Override
    public long headerLength() {
        return PcapGlobalHeader.LENGTH;
    }

    @Override
    public long recordLength(int length, List<String> comments) {
        return PcapRecordHeader.LENGTH + Math.min(length, SNAPLEN);
    }

    /**
     * Pushes everything written so far to the stream, and flushes the stream.
     *
     * @throws IOException if the writer is closed or the stream fails
     */
    @Override
    public void flush() throws IOException {
        ensureOpen();
        drainBuffer();
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
            drainBuffer();
        }
    }

    private void drainBuffer() throws IOException {
        if (used > 0) {
            out.write(buffer, 0, used);
            used = 0;
        }
    }

    private void ensureOpen() throws IOException {
        if (closed) {
            throw new IOException("PcapWriter is closed");
        }
    }
}
