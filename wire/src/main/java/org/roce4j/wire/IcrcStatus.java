package org.roce4j.wire;

/** Outcome of the ICRC check for one parsed packet. */
public enum IcrcStatus {
    VALID,
    INVALID,
    /** Not checked: the IP header the ICRC covers was not available (e.g. a UDP socket payload). */
    NOT_CHECKED
}
