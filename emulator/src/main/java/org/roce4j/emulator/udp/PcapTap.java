package org.roce4j.emulator.udp;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.List;

import org.roce4j.wire.pcap.CaptureWriter;

/**
 * The UDP link's capture (pcapng when the file's name ends in {@code .pcapng}, with comments on the
 * frames the fault plan touched; classic pcap otherwise): frames as sent and as received, from two threads (the RNIC's and the
 * socket's), so every write takes the tap's monitor. A write error closes the tap and is kept for
 * {@link #close()}, never thrown into the datapath.
 *
 * <p>Bounded: the file stops growing at {@code maxBytes} (a record that would pass the limit and
 * every frame after it are counted, not written: the capture is a clean prefix of the traffic);
 * with {@code validFramesOnly} a received datagram whose ICRC did not verify is counted, not
 * written — anyone on the network can send to port 4791, and should not fill the disk or the file.
 */
final class PcapTap {
    private final long maxBytes;
    private final boolean validFramesOnly;
    private CaptureWriter writer;
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
        writer = CaptureWriter.create(file);
        bytes = writer.headerLength();
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

    /** Records a frame with comments on what the fault plan did to it (pcapng only; may be empty). */
    synchronized void write(long timestampNanos, byte[] frame, int offset, int length, List<String> faults) {
        if (writer == null) {
            return;
        }
        long record = writer.recordLength(length, faults);
        if (full || bytes + record > maxBytes) {
            full = true;
            overLimit++;
            return;
        }
        try {
            writer.write(timestampNanos, frame, offset, length, faults);
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
