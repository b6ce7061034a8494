package org.roce4j.wire;

/** Outcome of the VCRC check (IBTA §7.8.2) for one parsed packet. */
public enum VcrcStatus {
    VALID,
    INVALID,
    /** The packet carries no VCRC: RoCE (Ethernet's FCS does that job), or the parse stopped before it. */
    ABSENT
}
