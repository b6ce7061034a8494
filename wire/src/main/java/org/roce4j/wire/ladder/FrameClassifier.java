package org.roce4j.wire.ladder;

import java.util.Optional;
import org.roce4j.wire.pcap.CapturedPacket;

/**
 * Says which requests were sent again, and why: the one judgement a ladder does not take from the
 * wire alone. {@link CaptureLadder} hands it every packet of the capture in file order (RoCE or not,
 * good ICRC or not), so a classifier can keep its own frame count and state.
 */
@FunctionalInterface
public interface FrameClassifier {
    /** Marks no frame as resent. */
    FrameClassifier NONE = (number, packet) -> Optional.empty();

    /**
     * {@return why this frame is a retransmission ("resent: go-back after a PSN sequence error NAK"), or
     * empty when it is not one}
     *
     * @param number the frame's number, from 1
     * @param packet the captured packet
     */
    Optional<String> resent(long number, CapturedPacket packet);
}
