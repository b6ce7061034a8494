package org.roce4j.wire;

/** Where a packet sits in its message (IBTA §9.4: First, Middle, Last, Only). */
public enum Position {
    FIRST(true, false),
    MIDDLE(false, false),
    LAST(false, true),
    ONLY(true, true);

    private final boolean startsMessage;
    private final boolean endsMessage;

    Position(boolean startsMessage, boolean endsMessage) {
        this.startsMessage = startsMessage;
        this.endsMessage = endsMessage;
    }

    /** True for FIRST and ONLY. */
    public boolean startsMessage() {
        return startsMessage;
    }

    /** True for LAST and ONLY. */
    public boolean endsMessage() {
        return endsMessage;
    }
}
