package org.roce4j.wire;

import java.util.EnumMap;
import java.util.Map;

/** How many frames a decoder accepted, and how many it dropped for each reason. */
public final class DecodeCounters {
    private final long[] dropped = new long[DropReason.values().length];
    private long accepted;

    void accept() {
        accepted++;
    }

    void drop(DropReason reason) {
        dropped[reason.ordinal()]++;
    }

    public long accepted() {
        return accepted;
    }

    public long dropped(DropReason reason) {
        return dropped[reason.ordinal()];
    }

    /** Frames seen: accepted plus dropped for any reason. */
    public long total() {
        long total = accepted;
        for (long count : dropped) {
            total += count;
        }
        return total;
    }

    /** Frames that were RoCEv2 (to UDP 4791), well formed or not. */
    public long roce() {
        long roce = accepted;
        for (DropReason reason : DropReason.values()) {
            if (reason.isRoce()) {
                roce += dropped(reason);
            }
        }
        return roce;
    }

    /** The non-zero drop counts, in DropReason order. */
    public Map<DropReason, Long> drops() {
        Map<DropReason, Long> drops = new EnumMap<>(DropReason.class);
        for (DropReason reason : DropReason.values()) {
            if (dropped(reason) != 0) {
                drops.put(reason, dropped(reason));
            }
        }
        return drops;
    }

    @Override
    public String toString() {
        return "DecodeCounters[accepted=" + accepted + ", drops=" + drops() + "]";
    }
}
