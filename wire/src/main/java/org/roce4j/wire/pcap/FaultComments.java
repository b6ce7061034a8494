package org.roce4j.wire.pcap;

import java.util.List;

/**
 * The pcapng comment the emulator's fault-injecting tap puts on a frame its fault plan dropped: the
 * capture holds the frame as it was sent, and it never arrived. One copy of the wording, for the
 * emulator that writes it and the tools that read it ({@code roce4j analyze}, the ladder).
 */
public final class FaultComments {
    private static final String DROPPED_BY_RULE = "dropped by rule ";

    private FaultComments() {
    }

    /**
     * {@return the comment on a frame that rule {@code rule} dropped, e.g. "dropped by rule 2"}
     *
     * @param rule the rule's number, as the fault plan's description numbers them
     */
    public static String droppedBy(int rule) {
        return DROPPED_BY_RULE + rule;
    }

    /**
     * {@return whether the comments say the frame was dropped on its way}
     *
     * @param comments a packet's comments ({@link CapturedPacket#comments()})
     */
    public static boolean dropped(List<String> comments) {
        for (String comment : comments) {
            if (comment.startsWith(DROPPED_BY_RULE)) {
                return true;
            }
        }
        return false;
    }
}
