package org.roce4j.testkit;

import org.roce4j.wire.DecodeResult;
import org.roce4j.wire.FrameText;
import org.roce4j.wire.RoceFrame;

/**
 * One frame as one line of {@code roce4j decode}: number, time since the first frame, addresses,
 * opcode, QP, PSN, the key fields of each header, payload length, ICRC verdict. The same text as
 * the tools' {@code FramePrinter} summary: both write through {@link FrameText}.
 */
final class FrameLines {
    private FrameLines() {
    }

    /**
     * The summary line of frame {@code number} (from 1), captured {@code relativeNanos} after the
     * first; a CM MAD adds its message on a second, indented line, as decode prints it.
     */
    static String line(long number, long relativeNanos, DecodeResult result) {
        String prefix = number + " " + FrameText.seconds(relativeNanos) + " ";
        return switch (result) {
            case DecodeResult.Decoded decoded -> prefix + FrameText.summary(decoded.frame()) + " ICRC ok"
                    + cmLine(decoded.frame());
            case DecodeResult.Dropped dropped when dropped.parsed().isPresent() ->
                    prefix + FrameText.summary(dropped.parsedFrame()) + " ICRC BAD" + cmLine(dropped.parsedFrame());
            case DecodeResult.Dropped dropped when !dropped.reason().isRoce() ->
                    prefix + "non-RoCE (" + dropped.detail() + ")";
            case DecodeResult.Dropped dropped -> prefix + "malformed RoCE (" + dropped.reason() + ": " + dropped.detail() + ")";
        };
    }

    private static String cmLine(RoceFrame frame) {
        return FrameText.cmLine(frame).map(line -> "\n    " + line).orElse("");
    }
}
