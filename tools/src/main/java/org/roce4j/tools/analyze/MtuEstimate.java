package org.roce4j.tools.analyze;

import org.roce4j.wire.Position;

/**
 * The path MTU as the capture shows it: every FIRST and MIDDLE packet carries exactly one PMTU of
 * payload (IBTA 9.4.1), so the largest such payload is the PMTU. Unknown (0) until one is seen:
 * single-packet traffic does not reveal it.
 */
final class MtuEstimate {
    private int bytes;

    void observe(Position position, int payloadLength) {
        if (position == Position.FIRST || position == Position.MIDDLE) {
            bytes = Math.max(bytes, payloadLength);
        }
    }

    boolean known() {
        return bytes > 0;
    }

    int bytes() {
        return bytes;
    }
}
