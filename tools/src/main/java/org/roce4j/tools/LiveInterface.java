package org.roce4j.tools;

import java.io.EOFException;
import java.util.Optional;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.LockSupport;
import org.pcap4j.core.BpfProgram;
import org.pcap4j.core.NotOpenException;
import org.pcap4j.core.PcapHandle;
import org.pcap4j.core.PcapNativeException;
import org.pcap4j.core.PcapNetworkInterface.PromiscuousMode;
import org.pcap4j.packet.namednumber.DataLinkType;
import org.roce4j.wire.pcap.PcapWriter;
import org.roce4j.wire.pcap.PcapRecord;

/**
 * One network interface opened through libpcap (pcap4j, over JNA): frames in for {@code roce4j capture},
 * frames out for {@code roce4j replay}. The only class that touches pcap4j. Needs libpcap (Debian:
 * libpcap0.8) and the right to open a raw socket (root or CAP_NET_RAW).
 */
final class LiveInterface implements AutoCloseable {
    /** How long one wait for a frame lasts, so that a caller can stop and print between frames. */
    static final int READ_TIMEOUT_MILLIS = 100;
    /**
     * The kernel's ring for captured frames. Not immediate mode: there Linux's libpcap gives every frame a slot of
     * the snap length (256 KiB), so 2 MiB held 8 frames and a replayed burst lost most of the rest; in the default
     * mode (TPACKET_V3) frames are packed into blocks, each handed over when full or after the read timeout.
     */
    private static final int BUFFER_BYTES = 16 << 20;
    /** How long to wait before asking again when no frame is there: 2 ms, a few hundred wake-ups a second at most. */
    private static final long POLL_NANOS = 2_000_000L;

    private final String name;
    private final PcapHandle handle;

    private LiveInterface(String name, PcapHandle handle) {
        this.name = name;
        this.handle = handle;
    }

    /**
     * Opens {@code name} for capture (promiscuous, non-blocking, frames handed over within {@value #READ_TIMEOUT_MILLIS} ms, nanosecond timestamps where the
     * system has them) with the BPF {@code filter} ("" for every frame), or only for sending.
     *
     * @throws LiveCaptureException saying what libpcap said (no such device, permission, bad filter, no libpcap)
     */
    static LiveInterface open(String name, String filter) throws LiveCaptureException {
        try {
            PcapHandle handle = new PcapHandle.Builder(name)
                    .snaplen(PcapWriter.SNAPLEN)
                    .promiscuousMode(PromiscuousMode.PROMISCUOUS)
                    .timeoutMillis(READ_TIMEOUT_MILLIS)
                    .bufferSize(BUFFER_BYTES)
                    .timestampPrecision(PcapHandle.TimestampPrecision.NANO)
                    .build();
            try {
                // Linux's libpcap starts the read timeout only once a frame has come (pcap(3PCAP), "read timeout"):
                // a blocking read could wait for ever on a quiet interface, so frames are polled for instead.
                handle.setBlockingMode(PcapHandle.BlockingMode.NONBLOCKING);
                if (!handle.getDlt().equals(DataLinkType.EN10MB)) {
                    throw new LiveCaptureException(name + " is not an Ethernet interface (libpcap link type "
                            + handle.getDlt() + "): RoCEv2 travels in Ethernet frames");
                }
                if (!filter.isEmpty()) {
                    handle.setFilter(filter, BpfProgram.BpfCompileMode.OPTIMIZE);
                }
            } catch (LiveCaptureException | PcapNativeException | NotOpenException | RuntimeException e) {
                handle.close();
                throw e;
            }
            return new LiveInterface(name, handle);
        } catch (PcapNativeException | NotOpenException e) {
            throw new LiveCaptureException(name + ": " + e.getMessage());
        } catch (LinkageError e) { // JNA found no libpcap.so: UnsatisfiedLinkError first, NoClassDefFoundError after
            String why = String.valueOf(e.getMessage());
            int cut = why.indexOf("':"); // JNA goes on with every path it tried and the whole class path
            throw new LiveCaptureException("libpcap is missing (Debian: apt-get install libpcap0.8): "
                    + (cut > 0 ? why.substring(0, cut + 1) : why));
        }
    }

    /**
     * Waits up to {@value #READ_TIMEOUT_MILLIS} ms for the next frame.
     *
     * @return the frame with its capture time and length on the wire, or empty when none came
     * @throws LiveCaptureException when the interface fails (it went away, say)
     */
    Optional<PcapRecord> next() throws LiveCaptureException {
        long deadline = System.nanoTime() + READ_TIMEOUT_MILLIS * 1_000_000L;
        while (true) {
            try {
                byte[] data = handle.getNextRawPacketEx();
                java.sql.Timestamp time = handle.getTimestamp();
                long nanos = Math.floorDiv(time.getTime(), 1000L) * 1_000_000_000L + time.getNanos();
                Integer original = handle.getOriginalLength();
                return Optional.of(new PcapRecord(nanos, original == null ? data.length : original, data));
            } catch (TimeoutException none) { // non-blocking: nothing there right now
                if (System.nanoTime() - deadline >= 0) {
                    return Optional.empty();
                }
                LockSupport.parkNanos(POLL_NANOS);
            } catch (EOFException | PcapNativeException | NotOpenException e) {
                throw new LiveCaptureException(name + ": " + e.getMessage());
            }
        }
    }

    /**
     * Sends one Ethernet frame as it is (pcap_sendpacket).
     *
     * @throws LiveCaptureException when libpcap refuses it
     */
    void send(byte[] frame) throws LiveCaptureException {
        try {
            handle.sendPacket(frame);
        } catch (PcapNativeException | NotOpenException e) {
            throw new LiveCaptureException(name + ": cannot send: " + e.getMessage());
        }
    }

    /** {@return the frames the kernel dropped because they came faster than they were read (pcap_stats)} */
    long droppedByKernel() {
        try {
            return handle.getStats().getNumPacketsDropped();
        } catch (PcapNativeException | NotOpenException e) {
            return 0;
        }
    }

    @Override
    public void close() {
        handle.close();
    }

    /** libpcap could not do what was asked: the message says what and on which interface. */
    static final class LiveCaptureException extends Exception {
        private static final long serialVersionUID = 1L;

        LiveCaptureException(String message) {
            super(message);
        }
    }
}
