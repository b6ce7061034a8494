package org.roce4j.tools.analyze;

/**
 * A request sent again, as the analysis judged it: the first packet of a go-back or one that
 * follows it, and the go-back's cause.
 *
 * @param startsGoBack true for the first resent packet of a go-back
 * @param cause        why the requester went back
 */
public record Resend(boolean startsGoBack, RetransmissionCause cause) {
    /** {@return the judgement in words, e.g. "resent: starts a go-back (SEQUENCE_NAK)"} */
    public String describe() {
        return "resent: " + (startsGoBack ? "starts a go-back (" : "continues the go-back (") + cause + ")";
    }
}
