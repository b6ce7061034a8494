package org.roce4j.wire.ladder;

import static java.util.Locale.ROOT;

import java.util.List;
import org.roce4j.wire.FrameText;

/**
 * Draws a {@link Ladder} as SVG: self-contained (inline CSS, no script, no fonts or images to
 * fetch), one {@code <g class="arrow ...">} per frame with its detail in a {@code <title>} that a
 * browser shows on hover. Marked arrows carry a class per {@link Mark} ({@code nak}, {@code rnr-nak},
 * {@code resent}, {@code dropped}, {@code bad-icrc}); a dropped frame's arrow stops short in a cross.
 */
public final class LadderSvg {
    private static final int LEFT = 110; // the time column
    private static final int LANE = 330; // between two lifelines
    private static final int HEADER_TOP = 52;
    private static final int HEADER_HEIGHT = 34;
    private static final int SLANT = 8; // an arrow arrives a little later than it leaves
    private static final int CROSS = 6;

    private static final String STYLE = """
            svg { font-family: 'DejaVu Sans', Arial, sans-serif; font-size: 11px; }
            .background { fill: #ffffff; }
            .title { font-size: 15px; font-weight: bold; }
            .note { fill: #555555; }
            .lifeline { stroke: #9a9a9a; stroke-width: 1.5; }
            .lifeline-box { fill: #eef3f8; stroke: #5b7a99; }
            .lifeline-name { text-anchor: middle; font-weight: bold; }
            .arrow text.time { fill: #666666; font-family: 'DejaVu Sans Mono', monospace; font-size: 10px; text-anchor: end; }
            .arrow line { stroke: #1f4e79; stroke-width: 1.4; }
            .arrow text { fill: #1f4e79; text-anchor: middle; }
            .arrow polygon { fill: #1f4e79; }
            .arrow.nak line, .arrow.rnr-nak line { stroke: #c00000; stroke-width: 2; }
            .arrow.nak text, .arrow.rnr-nak text { fill: #c00000; font-weight: bold; }
            .arrow.nak polygon, .arrow.rnr-nak polygon { fill: #c00000; }
            .arrow.resent line { stroke: #7030a0; stroke-dasharray: 7 3; }
            .arrow.resent text { fill: #7030a0; }
            .arrow.resent polygon { fill: #7030a0; }
            .arrow.dropped line, .arrow.dropped .cross { stroke: #d04000; }
            .arrow.dropped text { fill: #d04000; }
            .arrow.bad-icrc line { stroke: #888888; stroke-dasharray: 2 2; }
            .arrow.bad-icrc text { fill: #888888; }
            .arrow:hover line { stroke-width: 3; }
            .gap rect { fill: #f2f2f2; stroke: #bbbbbb; stroke-dasharray: 4 3; }
            .gap text { fill: #555555; font-style: italic; text-anchor: middle; }
            .legend-sample { stroke-width: 2; }
            """;

    private LadderSvg() {
    }

    /**
     * {@return the ladder as a standalone SVG document}
     *
     * @param ladder what to draw
     */
    public static String svg(Ladder ladder) {
        return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n" + svgElement(ladder);
    }

    /**
     * {@return the ladder as an HTML page with the SVG inline}
     *
     * @param ladder what to draw
     */
    public static String html(Ladder ladder) {
        return "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>"
                + escape(ladder.title()) + "</title>\n<style>body { margin: 0; background: #ffffff; }</style>\n</head>\n<body>\n"
                + svgElement(ladder) + "</body>\n</html>\n";
    }

    private static String svgElement(Ladder ladder) {
        List<Endpoint> lifelines = ladder.lifelines();
        TimeAxis axis = new TimeAxis(ladder.arrows(), HEADER_TOP + HEADER_HEIGHT);
        int width = LEFT + Math.max(lifelines.size(), 2) * LANE;
        int height = axis.bottom();
        StringBuilder svg = new StringBuilder(4096 + 1024 * ladder.arrows().size());
        svg.append(String.format(ROOT, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\""
                + " viewBox=\"0 0 %d %d\">%n", width, height, width, height));
        svg.append("<style>\n").append(STYLE).append("</style>\n");
        svg.append(String.format(ROOT, "<rect class=\"background\" x=\"0\" y=\"0\" width=\"%d\" height=\"%d\"/>%n", width, height));
        header(svg, ladder);
        for (int i = 0; i < lifelines.size(); i++) {
            lifeline(svg, lifelines.get(i), x(i), height);
        }
        for (TimeAxis.Gap gap : axis.gaps()) {
            gap(svg, gap, width);
        }
        for (int i = 0; i < ladder.arrows().size(); i++) {
            LadderArrow arrow = ladder.arrows().get(i);
            arrow(svg, arrow, x(lifelines.indexOf(arrow.from())), x(lifelines.indexOf(arrow.to())), axis.y(i));
        }
        svg.append("</svg>\n");
        return svg.toString();
    }

    private static int x(int lifeline) {
        return LEFT + LANE / 2 + lifeline * LANE;
    }

    private static void header(StringBuilder svg, Ladder ladder) {
        svg.append("<text class=\"title\" x=\"10\" y=\"20\">").append(escape(ladder.title())).append("</text>\n");
        String summary = ladder.arrows().size() + " of " + ladder.frames() + " frames drawn"
                + (ladder.notDrawn().isEmpty() ? "" : " (not drawn: " + ladder.notDrawn() + ")")
                + "; time runs down, pauses over " + TimeAxis.COMPRESS_AFTER + "x the median spacing compressed";
        svg.append("<text class=\"note\" x=\"10\" y=\"36\">").append(escape(summary)).append("</text>\n");
        int x = 10;
        String[][] legend = {{"#1f4e79", "", "frame"}, {"#c00000", "", "NAK / RNR NAK"}, {"#7030a0", "7 3", "resent"},
            {"#d04000", "", "dropped (cross)"}, {"#888888", "2 2", "bad ICRC"}};
        for (String[] entry : legend) {
            svg.append(String.format(ROOT, "<line class=\"legend-sample\" x1=\"%d\" y1=\"46\" x2=\"%d\" y2=\"46\""
                    + " stroke=\"%s\"%s/><text class=\"note\" x=\"%d\" y=\"50\">%s</text>%n", x, x + 24, entry[0],
                    entry[1].isEmpty() ? "" : " stroke-dasharray=\"" + entry[1] + "\"", x + 30, escape(entry[2])));
            x += 40 + 7 * entry[2].length();
        }
    }

    private static void lifeline(StringBuilder svg, Endpoint endpoint, int x, int height) {
        int boxWidth = LANE - 60;
        svg.append(String.format(ROOT, "<g class=\"lifeline-head\"><rect class=\"lifeline-box\" x=\"%d\" y=\"%d\""
                        + " width=\"%d\" height=\"%d\" rx=\"4\"/><text class=\"lifeline-name\" x=\"%d\" y=\"%d\">%s</text></g>%n",
                x - boxWidth / 2, HEADER_TOP, boxWidth, HEADER_HEIGHT - 10, x, HEADER_TOP + 16, escape(endpoint.name())));
        svg.append(String.format(ROOT, "<line class=\"lifeline\" x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\"/>%n",
                x, HEADER_TOP + HEADER_HEIGHT - 10, x, height));
    }

    private static void gap(StringBuilder svg, TimeAxis.Gap gap, int width) {
        svg.append(String.format(ROOT, "<g class=\"gap\"><title>%s</title><rect x=\"4\" y=\"%d\" width=\"%d\" height=\"%d\"/>"
                        + "<text x=\"%d\" y=\"%d\">%s</text></g>%n", escape("compressed: " + idle(gap.idleNanos())),
                gap.top(), width - 8, gap.bottom() - gap.top(), width / 2, (gap.top() + gap.bottom()) / 2 + 4,
                escape("≈ " + idle(gap.idleNanos()) + " (not to scale)")));
    }

    private static String idle(long nanos) {
        return nanos >= 1_000_000 ? String.format(ROOT, "%.3f ms idle", nanos / 1e6)
                : String.format(ROOT, "%.3f µs idle", nanos / 1e3);
    }

    private static void arrow(StringBuilder svg, LadderArrow arrow, int fromX, int toX, int y) {
        StringBuilder classes = new StringBuilder("arrow");
        arrow.marks().stream().sorted().forEach(mark -> classes.append(' ').append(mark.name().toLowerCase(ROOT).replace('_', '-')));
        svg.append(String.format(ROOT, "<g class=\"%s\" id=\"frame-%d\"><title>%s</title>", classes, arrow.frame(),
                escape(arrow.detail())));
        svg.append(String.format(ROOT, "<text class=\"time\" x=\"%d\" y=\"%d\">%s</text>", LEFT - 8, y + 4,
                FrameText.seconds(arrow.nanos())));
        int direction = toX >= fromX ? 1 : -1;
        if (toX == fromX) { // a frame to its own QP: a short stub to the right
            toX = fromX + 40;
        }
        boolean dropped = arrow.marks().contains(Mark.DROPPED);
        int endX = dropped ? fromX + (toX - fromX) * 7 / 10 : toX;
        int endY = dropped ? y + SLANT * 7 / 10 : y + SLANT;
        svg.append(String.format(ROOT, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\"/>", fromX, y, endX, endY));
        if (dropped) {
            svg.append(String.format(ROOT, "<path class=\"cross\" d=\"M%d %d L%d %d M%d %d L%d %d\" stroke-width=\"2.5\"/>",
                    endX - CROSS, endY - CROSS, endX + CROSS, endY + CROSS, endX - CROSS, endY + CROSS, endX + CROSS, endY - CROSS));
        } else {
            svg.append(String.format(ROOT, "<polygon points=\"%d,%d %d,%d %d,%d\"/>", toX, y + SLANT,
                    toX - direction * 9, y + SLANT - 4, toX - direction * 8, y + SLANT + 4));
        }
        svg.append(String.format(ROOT, "<text x=\"%d\" y=\"%d\">%s</text></g>%n", (fromX + toX) / 2, y - 3,
                escape(decorated(arrow))));
    }

    /** The label with words for what colour alone would say: resent, dropped, bad ICRC. */
    private static String decorated(LadderArrow arrow) {
        String label = arrow.label();
        if (arrow.marks().contains(Mark.RESENT)) {
            label = "↻ " + label + " (resent)";
        }
        if (arrow.marks().contains(Mark.DROPPED)) {
            label = label + " ✕ dropped";
        }
        if (arrow.marks().contains(Mark.BAD_ICRC)) {
            label = label + " BAD ICRC";
        }
        return label;
    }

    /** XML character data and attribute values. */
    static String escape(String text) {
        StringBuilder escaped = new StringBuilder(text.length() + 16);
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            switch (c) {
                case '&' -> escaped.append("&amp;");
                case '<' -> escaped.append("&lt;");
                case '>' -> escaped.append("&gt;");
                case '"' -> escaped.append("&quot;");
                default -> escaped.append(c);
            }
        }
        return escaped.toString();
    }
}
