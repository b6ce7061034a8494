package org.roce4j.emulator.fabric;

import java.util.List;

/**
 * Decides the fate of each frame on its way through the fabric: the one insertion point for
 * fault injection (seeded drop, delay, reorder, corrupt). {@link FrameSwitch#route} calls it for
 * every frame that has a destination, after the frame is copied and before it is queued.
 *
 * <p>Reordering is a delay that differs from frame to frame; corruption is a change of the copy's
 * bytes in place; duplication is a second queue entry, asked for by
 * {@link #duplicateDeliveryTimeNanos}. {@link Faults} builds a seeded filter of all of them.
 */
@FunctionalInterface
public interface FrameFilter {

    /** Returned to drop the frame; it is counted in {@link FabricCounters#framesDroppedByFilter()}. */
    long DROP = Long.MIN_VALUE;

    /** Delivers every frame unchanged after the link delay. */
    FrameFilter PASS_ALL = (frame, length, transmitNanos, nominalDeliveryNanos) -> nominalDeliveryNanos;

    /**
     * @param frame the fabric's copy of the frame, from index 0; may be modified
     * @param length the frame's length
     * @param transmitNanos when it was transmitted
     * @param nominalDeliveryNanos when it would arrive with no fault: transmit time plus link delay
     * @return when to deliver it (not before {@code transmitNanos}), or {@link #DROP}
     */
    long deliveryTimeNanos(byte[] frame, int length, long transmitNanos, long nominalDeliveryNanos);

    /**
     * Asked once right after {@link #deliveryTimeNanos} kept a frame (never for a dropped one):
     * whether to deliver a second copy of it, made of the bytes as that call left them.
     *
     * @param deliveryNanos when the frame itself will be delivered
     * @return when to deliver the copy (queued after the frame when the times are equal), or
     *     {@link #DROP} for no copy, which the default returns
     */
    default long duplicateDeliveryTimeNanos(byte[] frame, int length, long transmitNanos, long deliveryNanos) {
        return DROP;
    }

    /**
     * What the last {@link #deliveryTimeNanos} call did to its frame, in the words a pcapng capture's
     * comments use ("dropped by rule 2", "ICRC corrupted by rule 1", "held back 6 µs by rule 3");
     * empty when it did nothing. Only a tap asks, so a filter may build the text here, not per frame.
     *
     * @return one line per thing done, in a fixed order
     */
    default List<String> lastFrameFaults() {
        return List.of();
    }

    /**
     * The same for the second copy that {@link #duplicateDeliveryTimeNanos} last asked for: what was
     * done to the frame, and that it is a duplicate ("duplicated by rule 4").
     *
     * @return one line per thing done
     */
    default List<String> lastDuplicateFaults() {
        return List.of();
    }
}
