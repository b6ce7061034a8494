package org.roce4j.testkit;

import static org.roce4j.testkit.RoceAssertions.assertThat;

import java.time.Duration;

import org.junit.jupiter.api.Test;
import org.roce4j.emulator.DeviceProfile;
import org.roce4j.emulator.RnicCounter;
import org.roce4j.emulator.fabric.FrameClass;
import org.roce4j.emulator.fabric.FrameMatch;
import org.roce4j.emulator.fabric.Faults;
import org.roce4j.verbs.Context;
import org.roce4j.verbs.QpState;
import org.roce4j.verbs.QpType;
import org.roce4j.verbs.SendWr;
import org.roce4j.verbs.WcStatus;

class FaultsAndProfilesTest {

    /** Loses the first ACK: the requester must time out and send the WRITE again. */
    public static final class LoseFirstAck implements FaultSchedule {
        @Override
        public Faults addTo(Faults plan) {
            return plan.dropNth(1, FrameMatch.only(FrameClass.ACKS));
        }
    }

    /** Loses every request: nothing ever reaches the responder. */
    public static final class LoseEveryRequest implements FaultSchedule {
        @Override
        public Faults addTo(Faults plan) {
            return plan.drop(1.0, FrameMatch.only(FrameClass.REQUESTS));
        }
    }

    @Test
    @EmulatedFabric(faults = LoseFirstAck.class)
    void aScriptedScheduleLosesExactlyTheFrameItNames(TestFabric fabric, Context a, Context b) {
        QpPair pair = QpPair.rc(a, b);
        pair.a().qp().postSend(SendWr.rdmaWrite(1, pair.a().mr(), 0, 64, pair.a().peerAddress(), pair.a().peerRkey()));

        assertThat(pair.a().cq()).hasCompletions(WcStatus.SUCCESS);
        assertThat(fabric.fabric().faultCounters().dropped()).isEqualTo(1);
        assertThat(fabric.node(0).rnic().counter(RnicCounter.LOCAL_ACK_TIMEOUTS)).isEqualTo(1);
        assertThat(fabric.node(0).rnic().counter(RnicCounter.RETRANSMITTED_PACKETS)).isEqualTo(1);
        assertThat(fabric.node(1).rnic().counter(RnicCounter.DUPLICATE_REQUESTS)).isEqualTo(1);
    }

    @Test
    @EmulatedFabric(faults = LoseEveryRequest.class)
    void underTheIbtaProfileRetryCountSevenRunsOutAfterSevenRetries(TestFabric fabric, Context a, Context b) {
        QpPair pair = QpPair.builder(QpType.RC).retryCnt(7).timeout(14).connect(a, b);
        pair.a().qp().postSend(SendWr.rdmaWrite(1, pair.a().mr(), 0, 64, pair.a().peerAddress(), pair.a().peerRkey()));

        assertThat(pair.a().cq()).hasCompletions(WcStatus.RETRY_EXC_ERR);
        assertThat(pair.a().qp()).isInState(QpState.ERR);
        assertThat(fabric.node(0).rnic().counter(RnicCounter.RETRANSMITTED_PACKETS)).isEqualTo(7);
    }

    @Test
    @EmulatedFabric(faults = LoseEveryRequest.class, profile = DeviceProfile.RXE_6_12)
    void underTheRxeProfileRetryCountSevenRetriesForever(TestFabric fabric, Context a, Context b) {
        QpPair pair = QpPair.builder(QpType.RC).retryCnt(7).timeout(14).connect(a, b);
        pair.a().qp().postSend(SendWr.rdmaWrite(1, pair.a().mr(), 0, 64, pair.a().peerAddress(), pair.a().peerRkey()));

        // 5 s of virtual time at 67 ms per timeout: some 70 retries, and still going.
        fabric.fabric().runFor(Duration.ofSeconds(5));
        assertThat(pair.a().qp()).isInState(QpState.RTS);
        assertThat(fabric.node(0).rnic().counter(RnicCounter.RETRANSMITTED_PACKETS)).isGreaterThan(50);
    }

    @Test
    @EmulatedFabric(drop = 0.3)
    void aPlanInstalledMidTestFromTheSeededFaultsReplacesTheAnnotations(TestFabric fabric, Context a, Context b) {
        QpPair pair = QpPair.rc(a, b);
        fabric.faults(fabric.seededFaults());
        for (int i = 0; i < 20; i++) {
            pair.a().qp().postSend(SendWr.rdmaWrite(i, pair.a().mr(), 0, 8, pair.a().peerAddress(), pair.a().peerRkey()));
        }
        assertThat(pair.a().cq()).hasCompletions(20).allSucceeded();
        assertThat(fabric.fabric().faultCounters().dropped()).isZero();
        assertThat(fabric.fabric().faults().seed()).isEqualTo(fabric.seed());
    }
}
