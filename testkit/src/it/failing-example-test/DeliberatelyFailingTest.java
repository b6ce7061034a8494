package com.example;

import static org.roce4j.testkit.RoceAssertions.assertThat;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.roce4j.testkit.EmulatedFabric;
import org.roce4j.testkit.QpPair;
import org.roce4j.verbs.Context;
import org.roce4j.verbs.QpType;
import org.roce4j.verbs.SendWr;

/**
 * Fails on purpose, to show what a failing RDMA test leaves behind: its pcap, the seed that replays
 * it, and the last frames of each QP. Half of all frames are lost and each QP may retry once, so
 * some WRITE always ends in IBV_WC_RETRY_EXC_ERR — which one, and the frames before it, depend on
 * the seed. Not part of the user project (which is what docs/getting-started.md shows):
 * ../check-failing-example adds it to a copy of that project, runs it expecting failure, then again
 * with the printed seed expecting the same failure.
 */
@Tag("deliberately-failing")
@EmulatedFabric(drop = 0.5)
class DeliberatelyFailingTest {

    @Test
    void thirtyTwoWritesSurviveHalfTheFramesLostWithOneRetry(Context a, Context b) {
        QpPair pair = QpPair.builder(QpType.RC).retryCnt(1).timeout(8).connect(a, b);
        for (int i = 0; i < 32; i++) {
            pair.a().qp().postSend(SendWr.rdmaWrite(i, pair.a().mr(), 64L * i, 64, pair.a().peerAddress() + 64L * i,
                    pair.a().peerRkey()));
        }
        assertThat(pair.a().cq()).hasCompletions(32).allSucceeded();
    }
}
