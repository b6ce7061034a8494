package org.roce4j.emulator.fabric;

/**
 * What the installed {@link Faults} did to frames ({@link Fabric#faultCounters()}). A frame hit by
 * several rules counts once per effect applied; a dropped frame counts only as dropped.
 *
 * @param dropped frames dropped (also in {@link FabricCounters#framesDroppedByFilter()})
 * @param duplicated second copies queued (also in {@link FabricCounters#framesDuplicatedByFilter()})
 * @param corrupted frames with one byte changed inside the ICRC-covered part
 * @param delayed frames held back by a fixed delay rule
 * @param reordered frames held back by a random amount within a reorder window
 */
public record FaultCounters(long dropped, long duplicated, long corrupted, long delayed, long reordered) {

    /** Nothing done: no faults installed yet. */
    public static final FaultCounters NONE = new FaultCounters(0, 0, 0, 0, 0);
}
