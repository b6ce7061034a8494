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

    /** The position of packet {@code index} (from 0) of a message of {@code count} packets (IBTA §9.4). */
    public static Position of(int index, int count) {
        if (count == 1) {
            return ONLY;
        }
        return index == 0 ? FIRST : index == count - 1 ? LAST : MIDDLE;
    }

    /**
     * Packets a message of {@code length} bytes takes at {@code mtu} bytes of payload each; an
     * empty message still takes one (IBTA §9.4: every message has at least one packet).
     */
    public static int packetCount(long length, int mtu) {
        return length == 0 ? 1 : (int) ((length + mtu - 1) / mtu);
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
