package org.roce4j.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class PerftestTrafficTest {
    @Test
    @DisplayName("a failed post reads as the C tool's line: scnt alone (latency loops), qp and scnt (bandwidth), qp alone (-D bandwidth)")
    void postFailureLines() {
        assertEquals("Couldn't post send: scnt=7", PerftestTraffic.postFailure(-1, 7));
        assertEquals("Couldn't post send: qp 2 scnt=7", PerftestTraffic.postFailure(2, 7));
        assertEquals("Couldn't post send: qp 0", PerftestTraffic.postFailure(0, -1));
    }
}
