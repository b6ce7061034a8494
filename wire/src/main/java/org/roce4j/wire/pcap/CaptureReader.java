package org.roce4j.wire.pcap;

import java.io.BufferedInputStream;
import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Reads a capture of either format, told apart by its first four bytes: classic pcap ({@link PcapReader})
 * or pcapng ({@link PcapngReader}), as Wireshark, tshark and dumpcap write by default. Every packet is a
 * {@link CapturedPacket} with its interface's link type. Iterable once, as {@link PcapReader}.
 */
public final class CaptureReader implements AutoCloseable, Iterable<CapturedPacket> {

    /** The two formats. */
    public enum Format {
        /** Classic libpcap (draft-ietf-opsawg-pcap). */
        PCAP,
        /** pcapng (draft-ietf-opsawg-pcapng). */
        PCAPNG
    }

    private final Format format;
    private final ReadingIterator.Read<CapturedPacket> source;
    private final Closeable closer;
    private boolean iterated;

    private CaptureReader(Format format, ReadingIterator.Read<CapturedPacket> source, Closeable closer) {
        this.format = format;
        this.source = source;
        this.closer = closer;
    }

    /**
     * Reads the start of {@code in} to tell the format. Closing the reader closes {@code in}.
     *
     * @param in the capture, positioned at its first byte
     * @return a reader positioned at the first packet
     * @throws IOException if {@code in} fails
     * @throws PcapFormatException if {@code in} is neither format, or its header is bad
     */
    public static CaptureReader of(InputStream in) throws IOException {
        BufferedInputStream buffered = new BufferedInputStream(Objects.requireNonNull(in, "in"));
        buffered.mark(4);
        byte[] magic = buffered.readNBytes(4);
        buffered.reset();
        if (magic.length == 4 && ByteBuffer.wrap(magic).getInt() == Pcapng.SECTION_HEADER) {
            PcapngReader reader = new PcapngReader(buffered);
            return new CaptureReader(Format.PCAPNG, reader::read, reader::close);
        }
        PcapReader reader = new PcapReader(buffered);
        return new CaptureReader(Format.PCAP, () -> reader.read().map(record -> new CapturedPacket(0,
                reader.linkType(), record.timestampNanos(), record.originalLength(), record.data(), List.of())),
                reader::close);
    }

    /**
     * Opens {@code file} and tells its format.
     *
     * @param file a pcap or pcapng file
     * @return a reader positioned at the first packet; closing it closes the file
     * @throws IOException if the file cannot be read
     * @throws PcapFormatException if the file is neither format, or its header is bad
     */
    public static CaptureReader open(Path file) throws IOException {
        return CaptureFiles.open(file, CaptureReader::of);
    }

    /** {@return which format the file is} */
    public Format format() {
        return format;
    }

    /**
     * Reads the next packet.
     *
     * @return the packet, or empty at a clean end of file
     * @throws PcapFormatException if the file is not well-formed from here on
     * @throws IOException if the stream fails or the reader is closed
     */
    public Optional<CapturedPacket> read() throws IOException {
        return source.read();
    }

    /**
     * Iterates over the remaining packets, once.
     *
     * @throws IllegalStateException if called a second time
     */
    @Override
    public Iterator<CapturedPacket> iterator() {
        if (iterated) {
            throw new IllegalStateException("a CaptureReader can be iterated only once");
        }
        iterated = true;
        return new ReadingIterator<>(source);
    }

    /** Closes the underlying stream. */
    @Override
    public void close() throws IOException {
        closer.close();
    }
}
