package org.roce4j.wire.pcap;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/**
 * A capture file being written, classic pcap or pcapng: what a tap writes to without caring which.
 * {@link #create} picks the format by the file's name, as Wireshark's "Save As" does: a name ending
 * in {@code .pcapng} gets pcapng, every other name classic pcap.
 *
 * <p>Comments are pcapng's per-packet {@code opt_comment} (what a fault injector did to the frame);
 * classic pcap has no place for them, so a {@link PcapWriter} leaves them out.
 */
public sealed interface CaptureWriter extends AutoCloseable permits PcapWriter, PcapngWriter {

    /**
     * Creates (or truncates) {@code file} and starts a capture in it, pcapng when its name ends in
     * {@code .pcapng} (any case), classic pcap otherwise.
     *
     * @param file the file to write
     * @return a writer that closes the file when closed
     * @throws IOException if the file cannot be opened for writing
     */
    static CaptureWriter create(Path file) throws IOException {
        return isPcapngName(file) ? PcapngWriter.create(file) : PcapWriter.create(file);
    }

    /** {@return whether {@link #create} writes pcapng to {@code file}: its name ends in ".pcapng"} */
    static boolean isPcapngName(Path file) {
        Path name = file.getFileName();
        return name != null && name.toString().toLowerCase(Locale.ROOT).endsWith(".pcapng");
    }

    /**
     * Writes one Ethernet frame, {@code frame[offset .. offset+length)}, whose original length is
     * {@code length}; only the first {@value PcapWriter#SNAPLEN} bytes are captured.
     *
     * @param timestampNanos nanoseconds since 1970-01-01T00:00:00Z
     * @param frame the array holding the frame
     * @param offset where the frame starts
     * @param length the frame's length
     * @param comments what to say about the frame (pcapng only), in order; may be empty
     * @throws IllegalArgumentException if the timestamp is out of the format's range or a comment too long
     * @throws IndexOutOfBoundsException if the slice is not inside {@code frame}
     * @throws IOException if the writer is closed or the stream fails
     */
    void write(long timestampNanos, byte[] frame, int offset, int length, List<String> comments) throws IOException;

    /** {@return the bytes of the file that are not packets: pcap's file header, pcapng's section and interface blocks} */
    long headerLength();

    /**
     * {@return the bytes one {@link #write} of a frame of {@code length} bytes with {@code comments} adds to the
     * file} A bounded tap asks before it writes, so that its file is a clean prefix of the traffic.
     *
     * @param length the frame's length
     * @param comments the comments it would carry
     */
    long recordLength(int length, List<String> comments);

    /**
     * Pushes everything written so far to the stream, and flushes the stream.
     *
     * @throws IOException if the writer is closed or the stream fails
     */
    void flush() throws IOException;

    /**
     * Flushes and closes the stream. Closing twice does nothing.
     *
     * @throws IOException if the stream fails; it is closed all the same
     */
    @Override
    void close() throws IOException;
}
