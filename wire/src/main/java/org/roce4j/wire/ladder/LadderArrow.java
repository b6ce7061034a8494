package org.roce4j.wire.ladder;

import java.util.Objects;
import java.util.Set;

/**
 * One frame as an arrow of the ladder.
 *
 * @param frame  the frame's number in the capture, from 1 as in Wireshark
 * @param nanos  its time, nanoseconds since the capture's first frame
 * @param from   the QP that sent it
 * @param to     the QP it is addressed to
 * @param label  the short text drawn on the arrow (opcode, PSN, lengths)
 * @param detail everything else, shown on hover (an SVG {@code <title>})
 * @param marks  what the arrow is drawn to show
 */
public record LadderArrow(long frame, long nanos, Endpoint from, Endpoint to, String label, String detail,
                          Set<Mark> marks) {
    /** Checks the parts are there and keeps a copy of the marks. */
    public LadderArrow {
        Objects.requireNonNull(from, "from");
        Objects.requireNonNull(to, "to");
        Objects.requireNonNull(label, "label");
        Objects.requireNonNull(detail, "detail");
        marks = Set.copyOf(marks);
    }
}
