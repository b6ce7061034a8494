package org.roce4j.wire;

/** Which way a packet flows in the reliable protocol (IBTA §9.7). */
public enum Direction {
    /** Sent by a requester: sends, writes, read requests, atomics, flush, resync. */
    REQUEST,
    /** Sent by a responder: ACK/NAK, read responses, atomic acknowledgements. */
    RESPONSE,
    /** RoCEv2 congestion notification packet (Annex A17.9.3): neither request nor response. */
    NOTIFICATION
}
