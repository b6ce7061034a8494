package org.roce4j.emulator.udp;

import java.net.InetSocketAddress;

import io.netty.channel.Channel;
import org.roce4j.wire.IcrcCalculator;
import org.roce4j.wire.Ipv4Header;

/**
 * UDP segmentation offload for the frames one duty cycle of the RNIC sends: a run of frames to the
 * same socket address, all of one UDP payload size (a shorter one may end the run), is collected
 * here and leaves in one sendmsg(2) with UDP_SEGMENT, which the kernel cuts into one datagram per
 * frame (Linux UDP GSO, {@code udp_send_skb} / {@code __udp_gso_segment}). One system call, one route
 * lookup and one socket buffer instead of one per frame.
 *
 * <p>The ICRC covers the IPv4 Identification (IBTA A17.4.2), which the kernel chooses: an unconnected
 * socket's DF datagram gets Identification 0 ({@code ip_select_ident_segs}), and {@code
 * inet_gso_segment} numbers the segments of a GSO datagram from there, {@code iph->id = htons(id++)}.
 * So segment {@code i} of a run goes out with Identification {@code i}, and {@link #renumber} gives it
 * the ICRC (and, for the capture, the header) of that Identification. A receiver that reads the
 * Identification (Linux rxe) checks exactly that; a roce4j link solves for it ({@link ReceivedIcrc}),
 * and 0 … {@value #MAX_SEGMENTS} lie in any sender's window.
 *
 * <p>Only IPv4 frames of at least {@value #MIN_PAYLOAD} bytes of UDP payload join a run (the data
 * packets of a long message: ACKs and short packets gain nothing, and an RC FLUSH, whose ICRC rxe
 * computes its own way, is never one of them).
 */
final class SegmentBurst {
    /** The smallest UDP payload worth a segment. */
    static final int MIN_PAYLOAD = 512;
    /** The largest UDP payload of one datagram, the whole run: 65,535 − 20 (IPv4 header) − 8 (UDP header). */
    static final int MAX_TOTAL = 65_507;
    /** Linux's UDP_MAX_SEGMENTS before 6.9 (128 since): the most segments one send may carry. */
    static final int MAX_SEGMENTS = 64;

    private final IcrcCalculator icrc = new IcrcCalculator();
    private final IdentificationDelta deltas = new IdentificationDelta();
    private final byte[] payloads = new byte[MAX_TOTAL];
    private Channel channel;
    private InetSocketAddress to;
    private int segmentSize;
    private int segments;
    private int length;
    /** A segment shorter than the others ended the run: the kernel allows it only last. */
    private boolean ended;

    /** Whether a frame of {@code n} bytes of UDP payload over IPv4 may be sent as a segment at all. */
    static boolean eligible(int ipVersion, int n) {
        return ipVersion == 4 && n >= MIN_PAYLOAD;
    }

    /** Whether a frame of {@code n} payload bytes to {@code to} on {@code channel} continues the run. */
    boolean continues(Channel channel, InetSocketAddress to, int n) {
        if (segments == 0) {
            return true;
        }
        return !ended && channel == this.channel && to.equals(this.to) && segments < MAX_SEGMENTS
                && length + n <= MAX_TOTAL && (n == segmentSize || n < segmentSize && segments > 1);
    }

    /** The segment number the next frame gets: its Identification. */
    int nextIdentification() {
        return segments;
    }

    /**
     * Gives the IPv4 frame at {@code ipOffset} Identification {@code id} (DF, as sent) and changes the ICRC
     * at {@code icrcOffset} by what that change of the Identification changes ({@link IdentificationDelta}:
     * linear, so from whatever Identification the frame had — a frame sent twice is renumbered twice),
     * not by computing it again: a frame a fault corrupted keeps an ICRC that does not verify.
     */
    void renumber(byte[] frame, int ipOffset, int icrcOffset, int id) {
        int was = (frame[ipOffset + 4] & 0xFF) << 8 | frame[ipOffset + 5] & 0xFF; // IPv4 Identification
        if (was == id) {
            return;
        }
        Ipv4Header.writeIdentification(frame, ipOffset, id, true);
        int trailing = icrc.coveredLength(frame, ipOffset, icrcOffset) - IdentificationDelta.ID_POSITION
                - IdentificationDelta.ID_LENGTH;
        IcrcCalculator.write(frame, icrcOffset, IcrcCalculator.read(frame, icrcOffset) ^ deltas.of(was ^ id, trailing));
    }

    /** Adds the UDP payload {@code frame[payload … payload + n)}; {@link #continues} said it may. */
    void add(Channel channel, InetSocketAddress to, byte[] frame, int payload, int n) {
        if (segments == 0) {
            this.channel = channel;
            this.to = to;
            this.segmentSize = n;
        } else if (n < segmentSize) {
            ended = true;
        }
        System.arraycopy(frame, payload, payloads, length, n);
        length += n;
        segments++;
    }

    /** Hands the run to {@code pacer} (a single frame as a plain datagram) and starts a new one. */
    void sendTo(TransmitPacer pacer) {
        if (segments == 1) {
            pacer.send(channel, payloads, 0, length, to);
        } else if (segments > 1) {
            pacer.sendSegments(channel, payloads, length, segmentSize, segments, to);
        }
        segments = 0;
        length = 0;
        ended = false;
        channel = null;
        to = null;
    }
}
