package org.roce4j.tools.analyze;

import java.net.InetAddress;

/**
 * Frames from {@code source} to {@code destination} for queue pair {@code destQp}: what the BTH and
 * IP header say of one direction. An RC BTH names only the destination QP, so a request direction
 * (requester to responder's QP) and its response direction (responder to requester's QP) are two
 * keys that {@link CaptureAnalysis} pairs by PSN.
 */
record FlowKey(InetAddress source, InetAddress destination, int destQp) {
    /** The key of frames going the other way to {@code qp}. */
    FlowKey reversed(int qp) {
        return new FlowKey(destination, source, qp);
    }
}
