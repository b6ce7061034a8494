package org.roce4j.wire.ladder;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Where each arrow goes on the vertical axis. Time runs down, not to scale: every frame gets a row
 * of at least {@link #ROW} pixels, a pause between two frames up to {@link #TALLEST_PAUSE} rows in
 * proportion to the capture's usual spacing (the median time between frames), and a longer pause
 * (over {@link #COMPRESS_AFTER} times that spacing: an ACK timeout, an RNR wait) is compressed to a
 * marked band that says how long the link was idle.
 */
final class TimeAxis {
    /** The least height of a row: one line of label text and some air. */
    static final int ROW = 24;
    /** A pause is drawn up to this many rows tall. */
    static final int TALLEST_PAUSE = 4;
    /** A pause longer than this many times the usual spacing is compressed. */
    static final int COMPRESS_AFTER = 16;
    /** The height of a compressed pause's band. */
    static final int GAP_HEIGHT = 36;

    /** A compressed pause: the band between {@code top} and {@code bottom}, and how long it was. */
    record Gap(int top, int bottom, long idleNanos) {
    }

    private final int[] ys;
    private final List<Gap> gaps = new ArrayList<>();
    private final int bottom;

    TimeAxis(List<LadderArrow> arrows, int top) {
        ys = new int[arrows.size()];
        long usual = medianSpacing(arrows);
        int y = top;
        for (int i = 0; i < arrows.size(); i++) {
            long pause = i == 0 ? 0 : arrows.get(i).nanos() - arrows.get(i - 1).nanos();
            if (pause > COMPRESS_AFTER * usual) {
                gaps.add(new Gap(y + ROW / 2, y + ROW / 2 + GAP_HEIGHT, pause));
                y += GAP_HEIGHT + ROW;
            } else if (i > 0) {
                y += ROW * (int) Math.clamp(Math.ceilDiv(Math.max(pause, 0), usual), 1, TALLEST_PAUSE);
            } else {
                y += ROW;
            }
            ys[i] = y;
        }
        bottom = y + ROW;
    }

    /** The median of the positive times between consecutive frames; 1 ns when there are none. */
    private static long medianSpacing(List<LadderArrow> arrows) {
        long[] spacings = new long[Math.max(arrows.size() - 1, 0)];
        int n = 0;
        for (int i = 1; i < arrows.size(); i++) {
            long pause = arrows.get(i).nanos() - arrows.get(i - 1).nanos();
            if (pause > 0) {
                spacings[n++] = pause;
            }
        }
        if (n == 0) {
            return 1;
        }
        Arrays.sort(spacings, 0, n);
        return spacings[(n - 1) / 2];
    }

    int y(int arrow) {
        return ys[arrow];
    }

    List<Gap> gaps() {
        return gaps;
    }

    int bottom() {
        return bottom;
    }
}
