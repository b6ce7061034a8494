package org.roce4j.emulator.udp;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;

import org.roce4j.wire.pcap.PcapWriter;

/**
 * The UDP link's capture: frames as sent and as received, from two threads (the RNIC's and the
 * socket's), so every write takes the tap's monitor. A write error closes the tap and is kept for
 * {@link #close()}, never thrown into the datapath.
 *
 * <p>Bounded: the file stops growing at {@code maxBytes} (a record that would pass the limit and
 * every frame after it are counted, not written: the capture is a clean prefix of the traffic);
 * with {@code validFramesOnly} a received datagram whose ICRC did not verify is counted, not
 * written — anyone on the network can send to port 4791, and should not fill the disk or the file.
 */
final class PcapTap {
    /** pcap's global header and record header (libpcap's pcap_file_header, pcap_pkthdr on disk). */
    private static final int FILE_HEADER = 24;
    private static final int RECORD_HEADER = 16;

    private final long maxBytes;
    private final boolean validFramesOnly;
    private PcapWriter writer;
    private IOException failure;
    private volatile boolean open;
    private long bytes;
    private boolean full;
    private long framesWritten;
    private long invalidSkipped;
    private long overLimit;

    PcapTap(long maxBytes, boolean validFramesOnly) {
        this.maxBytes = maxBytes;
        this.validFramesOnly = validFramesOnly;
    }

    synchronized void open(Path file) throws IOException {
        if (writer != null) {
            throw new IllegalStateException("the link already has a tap");
        }
        writer = PcapWriter.create(file);
        bytes = FILE_HEADER;
        open = true;
    }

    boolean isOpen() {
        return open;
    }

    /** Whether a received frame is recorded at all: not when only valid frames are and its ICRC did not verify. */
    boolean wantsReceived(boolean icrcValid) {
        if (icrcValid || !validFramesOnly) {
            return true;
        }
        synchronized (this) {
            invalidSkipped++;
        }
        return false;
    }

    synchronized void write(long timestampNanos, byte[] frame, int offset, int length) {
        if (writer == null) {
            return;
        }
        long record = RECORD_HEADER + Math.min(length, PcapWriter.SNAPLEN);
        if (full || bytes + record > maxBytes) {
            full = true;
            overLimit++;
            return;
        }
        try {
            writer.write(timestampNanos, frame, offset, length);
            bytes += record;
            framesWritten++;
        } catch (IOException e) {
            failure = e;
            closeQuietly();
        }
    }

    synchronized PcapTapCounters counters() {
        return new PcapTapCounters(framesWritten, bytes, invalidSkipped, overLimit);
    }

    synchronized void flush() {
        if (writer != null) {
            try {
                writer.flush();
            } catch (IOException e) {
                failure = e;
            }
        }
    }

    synchronized void close() {
        closeQuietly();
        if (failure != null) {
            IOException f = failure;
            failure = null;
            throw new UncheckedIOException("the pcap tap failed", f);
        }
    }

    private void closeQuietly() {
        open = false;
        if (writer != null) {
            try {
                writer.close();
            } catch (IOException e) {
                if (failure == null) {
                    failure = e;
                }
            }
            writer = null;
        }
    }
}
