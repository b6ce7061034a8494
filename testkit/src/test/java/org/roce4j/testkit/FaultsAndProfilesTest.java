package org.roce4j.testkit;

import static org.roce4j.testkit.RoceAssertions.assertThat;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.platform.engine.DiscoverySelector;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.engine.discovery.DiscoverySelectors;
import org.junit.platform.testkit.engine.EngineTestKit;
import org.junit.platform.testkit.engine.Event;
import org.junit.platform.testkit.engine.Events;
import org.roce4j.emulator.DeviceProfile;
import org.roce4j.emulator.RnicCounter;
import org.roce4j.emulator.fabric.FaultCounters;
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

    /** Corrupts the first request: the responder drops it for its ICRC, and the requester times out and sends it again. */
    public static final class CorruptFirstRequest implements FaultSchedule {
        @Override
        public Faults addTo(Faults plan) {
            return plan.corruptNth(1, FrameMatch.only(FrameClass.REQUESTS));
        }
    }

    /** The rule tests below, which {@link #theSameRulesHoldOnTheUdpLink} runs again over UDP. */
    private static final List<String> RULES_ON_EVERY_LINK = List.of("aScriptedScheduleLosesExactlyTheFrameItNames",
            "aCorruptedRequestIsDroppedForItsIcrcAndSentAgain", "underTheIbtaProfileRetryCountSevenRunsOutAfterSevenRetries",
            "underTheRxeProfileRetryCountSevenRetriesForever");
    /** The link each rule test ran on, so that the UDP run proves it was one. */
    private static final List<Link> LINKS_RUN = new CopyOnWriteArrayList<>();

    @Test
    @EmulatedFabric(faults = LoseFirstAck.class)
    void aScriptedScheduleLosesExactlyTheFrameItNames(TestFabric fabric, Context a, Context b) {
        LINKS_RUN.add(fabric.link());
        // The default timeout (67 ms): long enough that a real-time link's ACK is never late for it.
        QpPair pair = QpPair.rc(a, b);
        pair.a().qp().postSend(SendWr.rdmaWrite(1, pair.a().mr(), 0, 64, pair.a().peerAddress(), pair.a().peerRkey()));

        assertThat(pair.a().cq()).hasCompletions(WcStatus.SUCCESS);
        assertThat(fabric.faultCounters()).isEqualTo(new FaultCounters(1, 0, 0, 0, 0));
        assertThat(fabric.node(0).rnic().counter(RnicCounter.LOCAL_ACK_TIMEOUTS)).isEqualTo(1);
        assertThat(fabric.node(0).rnic().counter(RnicCounter.RETRANSMITTED_PACKETS)).isEqualTo(1);
        assertThat(fabric.node(1).rnic().counter(RnicCounter.DUPLICATE_REQUESTS)).isEqualTo(1);
    }

    @Test
    @EmulatedFabric(faults = CorruptFirstRequest.class)
    void aCorruptedRequestIsDroppedForItsIcrcAndSentAgain(TestFabric fabric, Context a, Context b) {
        LINKS_RUN.add(fabric.link());
        QpPair pair = QpPair.rc(a, b);
        long malformedBefore = fabric.node(1).rnic().counter(RnicCounter.DROPPED_MALFORMED);
        pair.a().qp().postSend(SendWr.rdmaWrite(1, pair.a().mr(), 0, 64, pair.a().peerAddress(), pair.a().peerRkey()));

        assertThat(pair.a().cq()).hasCompletions(WcStatus.SUCCESS);
        assertThat(fabric.faultCounters()).isEqualTo(new FaultCounters(0, 0, 1, 0, 0));
        assertThat(fabric.node(1).rnic().counter(RnicCounter.DROPPED_MALFORMED) - malformedBefore).isEqualTo(1);
        assertThat(fabric.node(0).rnic().counter(RnicCounter.RETRANSMITTED_PACKETS)).isEqualTo(1);
    }

    @Test
    @EmulatedFabric(faults = LoseEveryRequest.class)
    void underTheIbtaProfileRetryCountSevenRunsOutAfterSevenRetries(TestFabric fabric, Context a, Context b) {
        LINKS_RUN.add(fabric.link());
        QpPair pair = QpPair.builder(QpType.RC).retryCnt(7).timeout(12).connect(a, b);
        pair.a().qp().postSend(SendWr.rdmaWrite(1, pair.a().mr(), 0, 64, pair.a().peerAddress(), pair.a().peerRkey()));

        assertThat(pair.a().cq()).hasCompletions(WcStatus.RETRY_EXC_ERR);
        assertThat(pair.a().qp()).isInState(QpState.ERR);
        assertThat(fabric.node(0).rnic().counter(RnicCounter.RETRANSMITTED_PACKETS)).isEqualTo(7);
        assertThat(fabric.faultCounters().dropped()).isEqualTo(8);
    }

    /** Quirk.RETRY_COUNT_SEVEN_IS_INFINITE: rxe treats retry_cnt 7 as "retry forever", as IBTA does only rnr_retry 7. */
    @Test
    @EmulatedFabric(faults = LoseEveryRequest.class, profile = DeviceProfile.RXE_6_12)
    void underTheRxeProfileRetryCountSevenRetriesForever(TestFabric fabric, Context a, Context b) throws Exception {
        LINKS_RUN.add(fabric.link());
        QpPair pair = QpPair.builder(QpType.RC).retryCnt(7).timeout(12).connect(a, b);
        pair.a().qp().postSend(SendWr.rdmaWrite(1, pair.a().mr(), 0, 64, pair.a().peerAddress(), pair.a().peerRkey()));

        // 1 s at 16.8 ms per timeout: some 60 retries, where IBTA's count runs out after 7.
        letTimePass(fabric, Duration.ofSeconds(1));
        assertThat(pair.a().qp()).isInState(QpState.RTS);
        assertThat(pair.a().cq().poll()).isEmpty();
        assertThat(fabric.node(0).rnic().counter(RnicCounter.RETRANSMITTED_PACKETS)).isGreaterThan(20);
    }

    @Test
    @DisplayName("the fault and profile rules above have the same outcomes on the UDP link: the injector sits before the "
            + "sockets, the profile's quirk holds")
    void theSameRulesHoldOnTheUdpLink() {
        LINKS_RUN.clear();
        String saved = System.setProperty(FabricSettings.LINK_PROPERTY, "udp-loopback");
        Events events;
        try {
            events = EngineTestKit.engine("junit-jupiter").selectors(RULES_ON_EVERY_LINK.stream()
                            .map(name -> DiscoverySelectors.selectMethod(FaultsAndProfilesTest.class, method(name)))
                            .toArray(DiscoverySelector[]::new))
                    .execute().testEvents();
        } finally {
            if (saved == null) {
                System.clearProperty(FabricSettings.LINK_PROPERTY);
            } else {
                System.setProperty(FabricSettings.LINK_PROPERTY, saved);
            }
        }
        assertThat(events.failed().stream().map(FaultsAndProfilesTest::failure).toList()).isEmpty();
        assertThat(events.succeeded().count()).isEqualTo(RULES_ON_EVERY_LINK.size());
        assertThat(LINKS_RUN).hasSize(RULES_ON_EVERY_LINK.size()).containsOnly(Link.UDP_LOOPBACK);
    }

    private static String failure(Event event) {
        return event.getTestDescriptor().getDisplayName() + ": " + event.getPayload(TestExecutionResult.class)
                .flatMap(TestExecutionResult::getThrowable).map(Throwable::toString).orElse("no result");
    }

    private static Method method(String name) {
        return Arrays.stream(FaultsAndProfilesTest.class.getDeclaredMethods()).filter(m -> m.getName().equals(name))
                .findFirst().orElseThrow();
    }

    /** Virtual time on the deterministic fabric, the wall clock on the others. */
    private static void letTimePass(TestFabric fabric, Duration duration) throws InterruptedException {
        if (fabric.link() == Link.DETERMINISTIC) {
            fabric.fabric().runFor(duration);
        } else {
            Thread.sleep(duration);
        }
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
