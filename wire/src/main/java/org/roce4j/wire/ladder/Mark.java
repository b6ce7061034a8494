package org.roce4j.wire.ladder;

/** What a ladder arrow is drawn to show besides its frame. */
public enum Mark {
    /** An Acknowledge or READ response whose AETH syndrome is a NAK (IBTA 9.7.5.2, table 44). */
    NAK,
    /** An AETH syndrome RNR NAK (IBTA 9.7.5.2.8, table 45). */
    RNR_NAK,
    /** A request sent again: its PSN is not after the highest its sender had sent (the classifier says why). */
    RESENT,
    /** Sent, and dropped on the way by the emulator's fault injector (the pcapng comment "dropped by rule N"). */
    DROPPED,
    /** The ICRC does not match: the receiver drops the frame (rxe_icrc.c rxe_icrc_check). */
    BAD_ICRC
}
