package org.roce4j.wire.pcap;

import static org.roce4j.wire.pcap.PcapFormatException.Problem.CAPTURED_LENGTH_TOO_LARGE;
import static org.roce4j.wire.pcap.PcapFormatException.Problem.ORIGINAL_LENGTH_TOO_LARGE;
import static org.roce4j.wire.pcap.PcapFormatException.Problem.TRUNCATED_RECORD_DATA;
import static org.roce4j.wire.pcap.PcapFormatException.Problem.TRUNCATED_RECORD_HEADER;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Iterator;
import java.util.Objects;
import java.util.Optional;

/**
 * Reads a classic pcap file: either magic (0xA1B2C3D4 microseconds, 0xA1B23C4D nanoseconds),
 * either byte order, version 2.3 or 2.4, any link type. pcapng is refused.
 *
 * <p>The global header is read when the reader is made; {@link #read()} then returns records
 * one by one, or the reader is iterated once like a {@link java.nio.file.DirectoryStream}
 * (the iterator wraps a {@link PcapFormatException} in an {@link UncheckedIOException}).
 * Anything wrong with the input, a file cut in the middle of its last record included, is a
 * {@link PcapFormatException}; it is never read as a clean end of file. Not thread-safe.
 */
public final class PcapReader implements AutoCloseable, Iterable<PcapRecord> {

    /** Refuse to allocate more than this for one record, whatever the file claims. */
    static final int MAX_CAPTURED_LENGTH = 256 * 1024 * 1024;

    private final InputStream in;
    private final PcapGlobalHeader header;
    private final long maxCapturedLength;
    private final byte[] recordHeaderBytes = new byte[PcapRecordHeader.LENGTH];
    private final ByteBuffer recordHeaderView;
    private long position;
    private long recordNumber;
    private PcapFormatException failure;
    private boolean iterated;

    /**
     * Reads the global header from {@code in}. Closing the reader closes {@code in}; a failure
     * here leaves {@code in} open.
     *
     * @param in the capture, positioned at its first byte
     * @throws IOException if {@code in} fails
     * @throws PcapFormatException if {@code in} does not start with a classic pcap header
     */
    public PcapReader(InputStream in) throws IOException {
        this.in = new BufferedInputStream(Objects.requireNonNull(in, "in"));
        byte[] bytes = new byte[PcapGlobalHeader.LENGTH];
        int read = this.in.readNBytes(bytes, 0, bytes.length);
        header = PcapGlobalHeader.decode(bytes, read);
        position = read;
        recordHeaderView = ByteBuffer.wrap(recordHeaderBytes).order(header.byteOrder());
        // libpcap (sf-pcap.c) reads records longer than the snaplen, but nothing longer than its
        // MAXIMUM_SNAPLEN; a file whose snaplen is larger still gets that much, up to our cap.
        maxCapturedLength = Math.min(MAX_CAPTURED_LENGTH,
                Math.max(header.snaplen(), PcapGlobalHeader.MAXIMUM_SNAPLEN));
    }

    /**
     * Opens {@code file} and reads its global header.
     *
     * @param file a classic pcap file
     * @return a reader positioned at the first record; closing it closes the file
     * @throws IOException if the file cannot be read
     * @throws PcapFormatException if the file does not start with a classic pcap header
     */
    public static PcapReader open(Path file) throws IOException {
        return CaptureFiles.open(file, PcapReader::new);
    }

    /** {@return the link type of every packet in the file} */
    public LinkType linkType() {
        return header.linkType();
    }

    /** {@return the file's snaplen, an unsigned 32-bit value} */
    public long snaplen() {
        return header.snaplen();
    }

    /**
     * Reads the next record.
     *
     * @return the record, or empty at a clean end of file (right after a whole record)
     * @throws PcapFormatException if the file ends inside a record or a record header is absurd;
     *     every later call throws it again
     * @throws IOException if the stream fails or the reader is closed
     */
    public Optional<PcapRecord> read() throws IOException {
        if (failure != null) {
            throw failure;
        }
        try {
            return readRecord();
        } catch (PcapFormatException e) {
            failure = e;
            throw e;
        }
    }

    private Optional<PcapRecord> readRecord() throws IOException {
        long offset = position;
        String where = "record #" + (recordNumber + 1) + " ";
        int read = in.readNBytes(recordHeaderBytes, 0, PcapRecordHeader.LENGTH);
        position += read;
        if (read == 0) {
            return Optional.empty();
        }
        if (read < PcapRecordHeader.LENGTH) {
            throw new PcapFormatException(TRUNCATED_RECORD_HEADER, offset, where
                    + "header truncated: the file ends after " + read + " of "
                    + PcapRecordHeader.LENGTH + " bytes");
        }
        PcapRecordHeader record = PcapRecordHeader.decode(recordHeaderView, 0);
        if (record.capturedLength() > maxCapturedLength) {
            throw new PcapFormatException(CAPTURED_LENGTH_TOO_LARGE, offset, where
                    + "claims " + record.capturedLength() + " captured bytes; snaplen is "
                    + header.snaplen() + " and at most " + maxCapturedLength + " are accepted");
        }
        if (record.originalLength() > Integer.MAX_VALUE) {
            throw new PcapFormatException(ORIGINAL_LENGTH_TOO_LARGE, offset, where
                    + "claims an original length of " + record.originalLength() + " bytes");
        }
        int length = (int) record.capturedLength();
        byte[] data = readData(length);
        position += data.length;
        if (data.length < length) {
            throw new PcapFormatException(TRUNCATED_RECORD_DATA, offset, where
                    + "data truncated: the header announces " + length
                    + " captured bytes but the file ends after " + data.length
                    + ", at byte offset " + position);
        }
        recordNumber++;
        return Optional.of(new PcapRecord(record.timestampNanos(header.resolution()),
                (int) record.originalLength(), data));
    }

    /** Reads up to {@code length} bytes; fewer only at end of file. */
    private byte[] readData(int length) throws IOException {
        if (length > PcapGlobalHeader.MAXIMUM_SNAPLEN) {
            // Grows as bytes arrive: a lying header in a short file costs no 256 MiB array.
            return in.readNBytes(length);
        }
        byte[] data = new byte[length];
        int read = in.readNBytes(data, 0, length);
        return read == length ? data : Arrays.copyOf(data, read);
    }

    /**
     * Iterates over the remaining records. Like a {@link java.nio.file.DirectoryStream}, the
     * reader can be iterated only once.
     *
     * @throws IllegalStateException if called a second time
     */
    @Override
    public Iterator<PcapRecord> iterator() {
        if (iterated) {
            throw new IllegalStateException("a PcapReader can be iterated only once");
        }
        iterated = true;
        return new ReadingIterator<>(this::read);
    }

    /** Closes the underlying stream. */
    @Override
    public void close() throws IOException {
        in.close();
    }
}
