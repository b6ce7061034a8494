package org.roce4j.emulator.fabric;

/**
 * One line of a {@link Faults} plan: what to do to which frames, and when — with a probability
 * per matching frame, or to exactly the {@code nth} matching frame (a scripted rule).
 *
 * @param nth 1-based; 0 for a probabilistic rule
 * @param nanos DELAY: the delay; REORDER: the window; otherwise 0
 */
record FaultRule(Kind kind, FrameMatch where, double probability, long nth, long nanos) {

    enum Kind { DROP, DUPLICATE, CORRUPT, DELAY, REORDER }

    FaultRule {
        if (nth < 0) {
            throw new IllegalArgumentException("frames are counted from 1: " + nth);
        }
        if (nth == 0 && !(probability >= 0 && probability <= 1)) {
            throw new IllegalArgumentException("probability must be in [0, 1]: " + probability);
        }
        if (nanos < 0 || kind == Kind.REORDER && nanos == 0) {
            throw new IllegalArgumentException(kind + " needs a positive time: " + nanos + " ns");
        }
    }

    boolean scripted() {
        return nth > 0;
    }

    @Override
    public String toString() {
        String action = switch (kind) {
            case DROP -> "drop";
            case DUPLICATE -> "duplicate";
            case CORRUPT -> "corrupt a byte of";
            case DELAY -> "delay by " + nanos + " ns";
            case REORDER -> "reorder within " + nanos + " ns";
        };
        return scripted() ? action + " frame " + nth + " of " + where
                : action + " " + where + ", probability " + probability;
    }
}
