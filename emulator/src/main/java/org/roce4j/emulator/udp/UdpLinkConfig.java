package org.roce4j.emulator.udp;

import java.util.Objects;

import org.roce4j.emulator.ReceivePolling;
import org.roce4j.verbs.Mtu;

/**
 * Settings of a UDP link. Loopback UDP on the project's machines moves roughly 0.25–0.33 M
 * datagrams/s per direction and drops what a receiver cannot take, so the link paces itself with
 * a token bucket and bounds its transmit queue; RC retransmission recovers what is lost anyway.
 *
 * @param packetsPerSecond the token bucket's rate; 0 sends as fast as the socket takes frames
 * @param burst the bucket's depth: frames that may leave back to back
 * @param transmitQueueFrames frames waiting for tokens; one more is dropped and counted
 * @param receiveBufferBytes SO_RCVBUF asked of the kernel (capped by net.core.rmem_max); 0 leaves the default
 * @param activeMtu the port's active MTU (1024, as rxe on a 1500-byte netdev)
 * @param epoll use Netty's epoll transport when its native library loads (NIO otherwise, or when false)
 * @param tapMaxBytes the most bytes a capture ({@link UdpRnic#tap}) writes: the file stops there
 *     (what no longer fits is counted in {@link PcapTapCounters#overLimit()}); at least 24, pcap's file header
 * @param tapValidFramesOnly the capture leaves out received datagrams whose ICRC does not verify
 *     (counted in {@link PcapTapCounters#invalidSkipped()}); sent frames are always valid
 * @param segmentationOffload UDP segmentation offload, both ways (epoll only, where the kernel has it):
 *     the data frames one duty cycle of the RNIC sends to one peer leave in one sendmsg(2) with
 *     UDP_SEGMENT (GSO), and the sockets read with UDP_GRO. On the wire every frame is still its own
 *     datagram, with the Identification the kernel gives it; a capture on the sending host's lo shows
 *     the unsegmented send as one long datagram, which Wireshark and {@code roce4j capture} do not
 *     cut into frames (the link's own tap shows every frame): off by default
 * @param receivePolling whether the unicast sockets are read by polling ({@link ReceivePolling}; epoll
 *     only): the sockets then read without UDP GRO; {@link ReceivePolling#OFF} by default
 */
public record UdpLinkConfig(long packetsPerSecond, int burst, int transmitQueueFrames, int receiveBufferBytes,
                            Mtu activeMtu, boolean epoll, long tapMaxBytes, boolean tapValidFramesOnly,
                            boolean segmentationOffload, ReceivePolling receivePolling) {

    /** A capture's default size limit: 1 GiB, about 250,000 frames of MTU 4096 or a million of MTU 1024. */
    public static final long DEFAULT_TAP_MAX_BYTES = 1L << 30;

    /**
     * 150 k frames/s in bursts of 32, 4096 frames queued, a 4 MiB receive buffer asked for, MTU 1024,
     * epoll; captures of at most 1 GiB, invalid received datagrams included; no segmentation offload; reads
     * woken by epoll, not polled.
     */
    public static final UdpLinkConfig DEFAULT = new UdpLinkConfig(150_000, 32, 4096, 4 << 20, Mtu.MTU_1024, true,
            DEFAULT_TAP_MAX_BYTES, false, false, ReceivePolling.OFF);

    public UdpLinkConfig {
        Objects.requireNonNull(activeMtu, "activeMtu");
        Objects.requireNonNull(receivePolling, "receivePolling");
        if (packetsPerSecond < 0 || burst < 1 || transmitQueueFrames < 1 || receiveBufferBytes < 0 || tapMaxBytes < 24) {
            throw new IllegalArgumentException(
                    "rate >= 0, burst >= 1, queue >= 1, receive buffer >= 0, tap limit >= 24 bytes: " + this);
        }
    }

    public UdpLinkConfig withPacketsPerSecond(long rate) {
        return new UdpLinkConfig(rate, burst, transmitQueueFrames, receiveBufferBytes, activeMtu, epoll,
                tapMaxBytes, tapValidFramesOnly, segmentationOffload, receivePolling);
    }

    public UdpLinkConfig withBurst(int frames) {
        return new UdpLinkConfig(packetsPerSecond, frames, transmitQueueFrames, receiveBufferBytes, activeMtu, epoll,
                tapMaxBytes, tapValidFramesOnly, segmentationOffload, receivePolling);
    }

    public UdpLinkConfig withTransmitQueueFrames(int frames) {
        return new UdpLinkConfig(packetsPerSecond, burst, frames, receiveBufferBytes, activeMtu, epoll,
                tapMaxBytes, tapValidFramesOnly, segmentationOffload, receivePolling);
    }

    public UdpLinkConfig withReceiveBufferBytes(int bytes) {
        return new UdpLinkConfig(packetsPerSecond, burst, transmitQueueFrames, bytes, activeMtu, epoll,
                tapMaxBytes, tapValidFramesOnly, segmentationOffload, receivePolling);
    }

    public UdpLinkConfig withActiveMtu(Mtu mtu) {
        return new UdpLinkConfig(packetsPerSecond, burst, transmitQueueFrames, receiveBufferBytes, mtu, epoll,
                tapMaxBytes, tapValidFramesOnly, segmentationOffload, receivePolling);
    }

    public UdpLinkConfig withEpoll(boolean useEpoll) {
        return new UdpLinkConfig(packetsPerSecond, burst, transmitQueueFrames, receiveBufferBytes, activeMtu, useEpoll,
                tapMaxBytes, tapValidFramesOnly, segmentationOffload, receivePolling);
    }

    /** A capture stops growing at {@code bytes} (see {@link #tapMaxBytes()}). */
    public UdpLinkConfig withTapMaxBytes(long bytes) {
        return new UdpLinkConfig(packetsPerSecond, burst, transmitQueueFrames, receiveBufferBytes, activeMtu, epoll,
                bytes, tapValidFramesOnly, segmentationOffload, receivePolling);
    }

    /** A capture records only received datagrams whose ICRC verified (see {@link #tapValidFramesOnly()}). */
    public UdpLinkConfig withTapValidFramesOnly(boolean validOnly) {
        return new UdpLinkConfig(packetsPerSecond, burst, transmitQueueFrames, receiveBufferBytes, activeMtu, epoll,
                tapMaxBytes, validOnly, segmentationOffload, receivePolling);
    }

    /** Sends a duty cycle's frames to one peer in one UDP GSO sendmsg(2) (see {@link #segmentationOffload()}). */
    public UdpLinkConfig withSegmentationOffload(boolean offload) {
        return new UdpLinkConfig(packetsPerSecond, burst, transmitQueueFrames, receiveBufferBytes, activeMtu, epoll,
                tapMaxBytes, tapValidFramesOnly, offload, receivePolling);
    }

    /** Reads the unicast sockets by polling (see {@link ReceivePolling}). */
    public UdpLinkConfig withReceivePolling(ReceivePolling polling) {
        return new UdpLinkConfig(packetsPerSecond, burst, transmitQueueFrames, receiveBufferBytes, activeMtu, epoll,
                tapMaxBytes, tapValidFramesOnly, segmentationOffload, polling);
    }
}
