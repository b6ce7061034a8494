package org.roce4j.wire.ladder;

import java.util.List;

/**
 * A capture as a ladder: the lifelines left to right, the arrows top to bottom.
 *
 * @param title     what the diagram shows (the capture's name)
 * @param lifelines one per QP, the two ends of a connection side by side
 * @param arrows    one per RoCE frame drawn, in capture order
 * @param frames    every frame the capture holds
 * @param notDrawn  what the capture holds and the ladder does not show, in words ("" when nothing)
 */
public record Ladder(String title, List<Endpoint> lifelines, List<LadderArrow> arrows, long frames, String notDrawn) {
    /** Keeps copies of the lists. */
    public Ladder {
        lifelines = List.copyOf(lifelines);
        arrows = List.copyOf(arrows);
    }
}
