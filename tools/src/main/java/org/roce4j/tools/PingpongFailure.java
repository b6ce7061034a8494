package org.roce4j.tools;

/**
 * A pingpong run that cannot go on. The message is what the C tool prints to stderr at that point,
 * one or more lines, word for word where the C tool has words for it; the run exits with 1.
 */
final class PingpongFailure extends Exception {
    PingpongFailure(String message) {
        super(message, null, false, false);
    }

    PingpongFailure(String message, Throwable cause) {
        super(message + (cause == null || cause.getMessage() == null ? "" : System.lineSeparator()
                + "  (" + cause.getMessage().strip() + ")"), cause, false, false);
    }
}
