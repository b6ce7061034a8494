package org.roce4j.tools.analyze;

/**
 * Why a requester went back and resent (IBTA 9.7.5.2 and 9.7.6.1), judged from what it received
 * before the first resent packet, in this order of precedence.
 */
public enum RetransmissionCause {
    /** A NAK with code 0, PSN sequence error (IBTA 9.7.5.2.1). */
    SEQUENCE_NAK,
    /** An RNR NAK: the requester retries after the advertised RNR timer (IBTA 9.7.5.2.8). */
    RNR,
    /**
     * An implicit NAK: a response for a later PSN arrived while a READ or atomic was waiting for
     * its own response (rxe_comp.c check_psn returns COMPST_ERROR_RETRY).
     */
    IMPLICIT_NAK,
    /** Nothing came back: the local ACK timeout expired (IBTA 9.7.6.1.3). */
    LOCAL_ACK_TIMEOUT
}
