package org.roce4j.emulator.udp;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;

import org.roce4j.wire.pcap.PcapWriter;

/**
 * The UDP link's capture: frames as sent and as received, from two threads (the RNIC's and the
 * socket's), so every write takes the tap's monitor. A write error closes the tap and is kept for
 * {@link #close()}, never thrown into the datapath.
 */
final class PcapTap {
    private PcapWriter writer;
    private IOException failure;
    private volatile boolean open;

    synchronized void open(Path file) throws IOException {
        if (writer != null) {
            throw new IllegalStateException("the link already has a tap");
        }
        writer = PcapWriter.create(file);
        open = true;
    }

    boolean isOpen() {
        return open;
    }

    synchronized void write(long timestampNanos, byte[] frame, int offset, int length) {
        if (writer == null) {
            return;
        }
        try {
            writer.write(timestampNanos, frame, offset, length);
        } catch (IOException e) {
            failure = e;
            closeQuietly();
        }
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
