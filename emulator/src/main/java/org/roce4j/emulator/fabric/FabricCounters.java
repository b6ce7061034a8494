package org.roce4j.emulator.fabric;

/**
 * A snapshot of what the fabric did with frames, so that nothing is silently lost
 * (DESIGN.md §3.3): every transmitted frame, and every duplicate the filter added, is delivered,
 * dropped for a counted reason, or still in flight:
 * {@code transmitted + duplicated = delivered + dropped + inFlight}.
 *
 * @param framesTransmitted every call to {@link FabricPort#transmit}, whatever became of it
 * @param framesDelivered frames handed to a {@link FrameReceiver}
 * @param framesDroppedUnknownDestination frames whose destination MAC no port has
 * @param framesDroppedMalformed frames shorter than an Ethernet header, longer than
 *     {@link Fabric#MAX_FRAME_LENGTH}, or not a valid slice of their array
 * @param framesDroppedByFilter frames the fault-injection filter dropped
 * @param framesDroppedClosed frames transmitted after {@link Fabric#close()}, or still queued then
 * @param framesInFlight frames queued for delivery
 * @param callbackFailures exceptions thrown by agents and receivers, caught and reported
 * @param tapWriteFailures frames the pcap tap could not write (the tap stops at the first)
 * @param framesDuplicatedByFilter second copies the fault-injection filter queued
 */
public record FabricCounters(
        long framesTransmitted,
        long framesDelivered,
        long framesDroppedUnknownDestination,
        long framesDroppedMalformed,
        long framesDroppedByFilter,
        long framesDroppedClosed,
        long framesInFlight,
        long callbackFailures,
        long tapWriteFailures,
        long framesDuplicatedByFilter) {

    /** {@return every frame dropped, whatever the reason} */
    public long framesDropped() {
        return framesDroppedUnknownDestination + framesDroppedMalformed + framesDroppedByFilter
                + framesDroppedClosed;
    }
}
