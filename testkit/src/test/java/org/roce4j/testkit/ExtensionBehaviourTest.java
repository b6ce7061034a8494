package org.roce4j.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectMethod;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.platform.engine.reporting.ReportEntry;
import org.junit.platform.testkit.engine.EngineTestKit;
import org.junit.platform.testkit.engine.EventType;
import org.junit.platform.testkit.engine.Events;
import org.roce4j.verbs.CompChannel;
import org.roce4j.emulator.DeviceProfile;
import org.roce4j.emulator.fabric.FrameClass;
import org.roce4j.emulator.fabric.FrameMatch;
import org.roce4j.emulator.fabric.Faults;
import org.roce4j.verbs.Context;
import org.roce4j.verbs.Cq;
import org.roce4j.verbs.Pd;
import org.roce4j.verbs.QpCap;
import org.roce4j.verbs.QpInitAttr;
import org.roce4j.verbs.QpType;
import org.roce4j.verbs.SendWr;
import org.roce4j.verbs.WcStatus;
import org.roce4j.wire.pcap.CaptureReader;

/**
 * The extension seen from outside, as a user's build sees it: sample test classes (nested, not run
 * by surefire on their own) are run through the JUnit Platform and their results inspected.
 */
class ExtensionBehaviourTest {

    private static Events run(Class<?> sample, String method, Map<String, String> properties) {
        Map<String, String> saved = new java.util.HashMap<>();
        properties.forEach((k, v) -> saved.put(k, System.setProperty(k, v)));
        try {
            return EngineTestKit.engine("junit-jupiter").selectors(selectMethod(sample, methodNamed(sample, method))).execute()
                    .testEvents();
        } finally {
            saved.forEach((k, v) -> {
                if (v == null) {
                    System.clearProperty(k);
                } else {
                    System.setProperty(k, v);
                }
            });
        }
    }

    private static java.lang.reflect.Method methodNamed(Class<?> sample, String name) {
        return java.util.Arrays.stream(sample.getDeclaredMethods()).filter(m -> m.getName().equals(name)).findFirst()
                .orElseThrow();
    }

    private static Throwable failureOf(Events events) {
        return events.failed().stream().findFirst()
                .flatMap(e -> e.getPayload(org.junit.platform.engine.TestExecutionResult.class))
                .flatMap(org.junit.platform.engine.TestExecutionResult::getThrowable)
                .orElseThrow(() -> new AssertionError("the sample test did not fail"));
    }

    private static String report(Events events) {
        return events.stream().filter(e -> e.getType() == EventType.REPORTING_ENTRY_PUBLISHED)
                .map(e -> e.getRequiredPayload(ReportEntry.class).getKeyValuePairs().get(RoceExtension.REPORT_ENTRY))
                .filter(java.util.Objects::nonNull).findFirst()
                .orElseThrow(() -> new AssertionError("no failure report was published"));
    }

    // ---- leaks -------------------------------------------------------------------------

    @EmulatedFabric
    static class Leaky {
        @Test
        void leavesAQpOpen(Context a) {
            Pd pd = a.allocPd();
            Cq cq = a.createCq(8);
            pd.createQp(QpInitAttr.of(QpType.RC, cq, QpCap.of(4, 4)));
        }

        @Test
        void leavesACqEventUnacknowledged(Context a, Context b) {
            CompChannel channel = a.createCompChannel();
            Cq cq = a.createCq(8, channel, 0);
            QpPair pair = QpPair.builder(QpType.RC).connect(a, b);
            try (var qp = pair.a().pd().createQp(QpInitAttr.of(QpType.RC, cq, QpCap.of(4, 4)))) {
                cq.reqNotify(false);
                // INIT first: Linux has no RESET -> ERR (qp_state_table).
                qp.modify(new org.roce4j.verbs.QpAttr().qpState(org.roce4j.verbs.QpState.INIT).pkeyIndex(0).portNum(1)
                        .qpAccessFlags(java.util.Set.of()));
                qp.modify(new org.roce4j.verbs.QpAttr().qpState(org.roce4j.verbs.QpState.ERR));
                qp.postRecv(org.roce4j.verbs.RecvWr.of(1, pair.a().mr(), 0, 8));
                assertThat(channel.getCqEvent(Duration.ofSeconds(1))).contains(cq);
                cq.poll(1);
            }
        }

        @Test
        void failsAndLeavesAQpOpen(Context a) {
            Pd pd = a.allocPd();
            Cq cq = a.createCq(8);
            pd.createQp(QpInitAttr.of(QpType.UD, cq, QpCap.of(4, 4)));
            throw new AssertionError("the test's own failure");
        }

        @Test
        void closesEverything(Context a) {
            try (Pd pd = a.allocPd(); Cq cq = a.createCq(8);
                 var qp = pd.createQp(QpInitAttr.of(QpType.RC, cq, QpCap.of(4, 4)))) {
                assertThat(qp.qpNum()).isPositive();
            }
        }
    }

    @Test
    void aQpLeftOpenFailsTheTestNamingItAndWhereItWasCreated() {
        Events events = run(Leaky.class, "leavesAQpOpen", Map.of());
        events.assertStatistics(s -> s.failed(1));
        Throwable failure = failureOf(events);
        assertThat(failure).hasMessageContainingAll("left verbs objects open",
                "QP 0x", "(RC) on rxe0", "Leaky.leavesAQpOpen(ExtensionBehaviourTest.java:", "CQ of", "PD on rxe0");
        assertThat(failure.getSuppressed()).as("the extension closed what was left").isEmpty();
    }

    @Test
    void aCompletionEventNotAcknowledgedFailsTheTest() {
        Events events = run(Leaky.class, "leavesACqEventUnacknowledged", Map.of());
        events.assertStatistics(s -> s.failed(1));
        Throwable failure = failureOf(events);
        assertThat(failure).hasMessageContaining(
                "1 completion event(s) got with getCqEvent and not acknowledged (ibv_ack_cq_events) on CQ");
        assertThat(failure.getSuppressed()).as("the extension acknowledged the event and closed everything").isEmpty();
    }

    @Test
    void aFailingTestThatLeaksFailsWithItsOwnFailureAndListsTheLeakInItsReport() {
        Events events = run(Leaky.class, "failsAndLeavesAQpOpen", Map.of());
        events.assertStatistics(s -> s.failed(1));
        assertThat(failureOf(events)).hasMessage("the test's own failure");
        assertThat(report(events)).contains("left open: QP 0x", "(UD) on rxe0 (created at ");
    }

    @Test
    void aTestThatClosesWhatItCreatedPassesAndLeavesNoCapture() {
        Events events = run(Leaky.class, "closesEverything", Map.of());
        events.assertStatistics(s -> s.succeeded(1).failed(0));
        assertThat(Path.of("target/roce4j-pcaps/ExtensionBehaviourTest$Leaky/closesEverything.pcap")).doesNotExist();
    }

    // ---- failure artifacts and replay ---------------------------------------------------

    @EmulatedFabric(drop = 0.5)
    static class FailsUnderLoss {
        /** Fails for every seed (some WRITE runs out of its single retry), at a place the seed decides. */
        @Test
        void everyWriteSucceedsWithOneRetry(Context a, Context b) {
            QpPair pair = QpPair.builder(QpType.RC).retryCnt(1).timeout(8).connect(a, b);
            for (int i = 0; i < 32; i++) {
                pair.a().qp().postSend(SendWr.rdmaWrite(i, pair.a().mr(), 0, 64, pair.a().peerAddress(),
                        pair.a().peerRkey()));
            }
            RoceAssertions.assertThat(pair.a().cq()).hasCompletions(32).allSucceeded();
        }
    }

    @Test
    void aFailureWritesThePcapPrintsTheSeedAndTheLastFramesAndTheSeedReplaysIt() throws Exception {
        Events first = run(FailsUnderLoss.class, "everyWriteSucceedsWithOneRetry", Map.of());
        first.assertStatistics(s -> s.failed(1));
        String report = report(first);
        Throwable failure = failureOf(first);

        Path pcap = Path.of("target/roce4j-pcaps/ExtensionBehaviourTest$FailsUnderLoss/everyWriteSucceedsWithOneRetry.pcap");
        assertThat(pcap).exists();
        assertThat(Files.size(pcap)).isGreaterThan(24);
        String seed = report.lines().filter(l -> l.startsWith("seed: ")).findFirst().orElseThrow()
                .replaceAll("seed: (\\d+) .*", "$1");
        assertThat(report).contains("(replay: -Droce4j.seed=" + seed + ")", "pcap: " + pcap.toAbsolutePath(),
                "faults: ", " at 10.0.0.2 (rxe1) (roce4j decode):", " RC RDMA Write", " ICRC ok", "IBV_WC_RETRY_EXC_ERR",
                "RETH(va=0x0000000080000000 rkey=");
        assertThat(failure.getMessage()).contains("IBV_WC_RETRY_EXC_ERR (transport retry counter exceeded)",
                "completes ibv_post_send on rxe0 QP 0x");
        assertThat(failure.getSuppressed()).anySatisfy(s -> assertThat(s).hasMessageContaining("-Droce4j.seed=" + seed));
        byte[] firstCapture = Files.readAllBytes(pcap);

        Events replay = run(FailsUnderLoss.class, "everyWriteSucceedsWithOneRetry", Map.of("roce4j.seed", seed));
        replay.assertStatistics(s -> s.failed(1));
        assertThat(failureOf(replay).getMessage()).isEqualTo(failure.getMessage());
        assertThat(report(replay)).isEqualTo(report);
        assertThat(Files.readAllBytes(pcap)).isEqualTo(firstCapture);
    }

    @Test
    @DisplayName("a failure draws its capture as a ladder beside the pcap and names it: an arrow per frame, resent requests marked")
    void aFailureDrawsItsCaptureAsALadderBesideThePcap() throws Exception {
        Events events = run(FailsUnderLoss.class, "everyWriteSucceedsWithOneRetry", Map.of("roce4j.seed", "7"));
        events.assertStatistics(s -> s.failed(1));
        Path pcap = Path.of("target/roce4j-pcaps/ExtensionBehaviourTest$FailsUnderLoss/everyWriteSucceedsWithOneRetry.pcap");
        Path ladder = pcap.resolveSibling("everyWriteSucceedsWithOneRetry.ladder.html");

        assertThat(report(events)).contains("pcap: " + pcap.toAbsolutePath() + "\nladder: " + ladder.toAbsolutePath());
        String html = Files.readString(ladder);
        long frames;
        try (CaptureReader reader = CaptureReader.open(pcap)) {
            frames = java.util.stream.StreamSupport.stream(reader.spliterator(), false).count();
        }
        assertThat(frames).isPositive();
        assertThat(html.split("<g class=\"arrow[ \"]", -1).length - 1L).isEqualTo(frames);
        assertThat(html).contains("class=\"arrow resent\"", "resent: its PSN is not after the highest this QP had sent",
                "RDMA Write Only PSN 0x");
    }

    @Test
    void theLadderOfACaptureIsItsNameWithLadderHtmlForPcap() {
        Path dir = Path.of("target", "x");
        assertThat(FailureReport.ladderOf(dir.resolve("t.pcap"))).isEqualTo(dir.resolve("t.ladder.html"));
        assertThat(FailureReport.ladderOf(dir.resolve("t.rxe1.pcap"))).isEqualTo(dir.resolve("t.rxe1.ladder.html"));
        assertThat(FailureReport.ladderOf(dir.resolve("t.pcapng"))).isEqualTo(dir.resolve("t.ladder.html"));
    }

    /** Loses every request on the UDP link: the WRITE runs out of its one retry, whatever the seed. */
    public static final class LoseEveryRequest implements FaultSchedule {
        @Override
        public Faults addTo(Faults plan) {
            return plan.drop(1.0, FrameMatch.only(FrameClass.REQUESTS));
        }
    }

    @EmulatedFabric(link = Link.UDP_LOOPBACK, faults = LoseEveryRequest.class, seed = 21)
    static class FailsUnderLossOnUdp {
        @Test
        void aWriteSucceedsWithOneRetry(Context a, Context b) {
            QpPair pair = QpPair.builder(QpType.RC).retryCnt(1).timeout(8).connect(a, b);
            pair.a().qp().postSend(SendWr.rdmaWrite(1, pair.a().mr(), 0, 64, pair.a().peerAddress(), pair.a().peerRkey()));
            RoceAssertions.assertThat(pair.a().cq()).hasCompletions(WcStatus.SUCCESS);
        }
    }

    @Test
    @DisplayName("on the UDP link a failure under a fault plan reports the seed, the plan, the captures and the last frames, "
            + "a dropped request among them as sent")
    void aFailureOnTheUdpLinkReportsTheSeedThePlanAndTheFramesAsSent() {
        Events events = run(FailsUnderLossOnUdp.class, "aWriteSucceedsWithOneRetry", Map.of());
        events.assertStatistics(s -> s.failed(1));
        String report = report(events);
        Path pcap = Path.of("target/roce4j-pcaps/ExtensionBehaviourTest$FailsUnderLossOnUdp/aWriteSucceedsWithOneRetry.pcap");
        assertThat(report).contains("seed: 21  (replay: -Droce4j.seed=21)", "fabric: 2 nodes, UDP_LOOPBACK",
                "faults, seed 21:", "rule 1: drop", "pcap: " + pcap.toAbsolutePath(),
                " at 127.0.0.3 (rxe1) (roce4j decode):", "127.0.0.2 → 127.0.0.3 RC RDMA Write Only");
        assertThat(failureOf(events).getMessage()).contains("IBV_WC_RETRY_EXC_ERR");
    }

    @EmulatedFabric
    static class FailsAfterAnRdmaCmConnect {
        @Test
        void connectsThroughRdmaCmAndFails(RdmaNode a, RdmaNode b) {
            QpPair.rcThroughCm(a, b);
            throw new AssertionError("the test's own failure");
        }
    }

    @Test
    void theFailureReportListsTheRdmaCmEventsEachNodeRaisedInTheOrderRaised() {
        Events events = run(FailsAfterAnRdmaCmConnect.class, "connectsThroughRdmaCmAndFails", Map.of());
        events.assertStatistics(s -> s.failed(1));
        String report = report(events);

        assertThat(report).contains("rdma_cm events, last 5 of 5 (time, node, event, local → peer, status):");
        List<String> cmLines = report.lines().filter(l -> l.matches("  \\d+\\.\\d{9} rxe\\d .*")).toList();
        assertThat(cmLines).extracting(l -> l.split(" ")[3] + " " + l.split(" ")[4]).containsExactly(
                "rxe0 ADDR_RESOLVED", "rxe0 ROUTE_RESOLVED", "rxe1 CONNECT_REQUEST", "rxe0 ESTABLISHED", "rxe1 ESTABLISHED");
        assertThat(cmLines.get(2)).matches("  0\\.000001000 rxe1 CONNECT_REQUEST 10\\.0\\.0\\.2:\\d+ → 10\\.0\\.0\\.1:\\d+ status 0");
        assertThat(report).contains("    CM REQ comm 0x", "    CM RTU comm 0x");
    }

    // ---- the other links -----------------------------------------------------------------

    @EmulatedFabric(link = Link.THREADED)
    static class OnTheThreadedFabric {
        @Test
        void sendArrives(TestFabric fabric, Context a, Context b) {
            assertThat(fabric.fabric().isDeterministic()).isFalse();
            QpPair pair = QpPair.rc(a, b);
            pair.b().qp().postRecv(org.roce4j.verbs.RecvWr.of(1, pair.b().mr(), 0, 128));
            pair.a().qp().postSend(SendWr.send(2, pair.a().mr(), 0, 100));
            RoceAssertions.assertThat(pair.b().cq()).hasCompletions(WcStatus.SUCCESS);
            RoceAssertions.assertThat(pair.a().cq()).hasCompletions(WcStatus.SUCCESS);
        }
    }

    @Test
    void theThreadedLinkCarriesAnRcSend() {
        run(OnTheThreadedFabric.class, "sendArrives", Map.of()).assertStatistics(s -> s.succeeded(1).failed(0));
    }

    @EmulatedFabric(link = Link.THREADED)
    static class LateCompletionOnTheThreadedFabric {
        @Test
        void noCompletionWhileOneIsOnItsWay(TestFabric fabric, Context a, Context b) throws Exception {
            QpPair pair = QpPair.rc(a, b);
            pair.b().qp().postRecv(org.roce4j.verbs.RecvWr.of(1, pair.b().mr(), 0, 128));
            Thread late = Thread.ofVirtual().start(() -> {
                try {
                    Thread.sleep(100);   // later than any fixed short wait, well inside the quiet period
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                pair.a().qp().postSend(SendWr.send(2, pair.a().mr(), 0, 100));
            });
            try {
                RoceAssertions.assertThat(pair.b().cq()).hasNoCompletions();
            } finally {
                late.join();
            }
        }
    }

    @Test
    @DisplayName("hasNoCompletions on a real-time link waits in proportion to the timeout: a completion 100 ms late fails it")
    void lateCompletionFailsNoCompletionsOnTheThreadedLink() {
        run(LateCompletionOnTheThreadedFabric.class, "noCompletionWhileOneIsOnItsWay", Map.of())
                .assertStatistics(s -> s.succeeded(0).failed(1));
    }

    @EmulatedFabric(link = Link.UDP_LOOPBACK, capture = Capture.ALWAYS)
    static class OnUdpLoopback {
        @Test
        void sendArrives(TestFabric fabric, Context a, Context b) {
            assertThat(fabric.node(1).address().getHostAddress()).isEqualTo("127.0.0.3");
            QpPair pair = QpPair.rc(a, b);
            pair.b().qp().postRecv(org.roce4j.verbs.RecvWr.of(1, pair.b().mr(), 0, 128));
            pair.a().qp().postSend(SendWr.send(2, pair.a().mr(), 0, 100));
            RoceAssertions.assertThat(pair.b().cq()).hasCompletions(WcStatus.SUCCESS);
            RoceAssertions.assertThat(pair.a().cq()).hasCompletions(WcStatus.SUCCESS);
        }
    }

    @Test
    void theUdpLoopbackLinkCarriesAnRcSendAndCapturesIt() throws Exception {
        run(OnUdpLoopback.class, "sendArrives", Map.of()).assertStatistics(s -> s.succeeded(1).failed(0));
        Path pcap = Path.of("target/roce4j-pcaps/ExtensionBehaviourTest$OnUdpLoopback/sendArrives.pcap");
        StringBuilder frames = new StringBuilder();
        FailureReport.lastFramesPerQp(pcap, 8, frames);
        assertThat(frames).contains("127.0.0.2 → 127.0.0.3 RC Send Only", "127.0.0.3 → 127.0.0.2 RC Acknowledge");
    }

    // ---- capture names ----------------------------------------------------------------------

    @EmulatedFabric(capture = Capture.ALWAYS)
    static class RepeatedWithCapture {
        @org.junit.jupiter.api.RepeatedTest(2)
        void twice(Context a, Context b) {
            QpPair pair = QpPair.rc(a, b);
            pair.a().qp().postSend(SendWr.rdmaWrite(1, pair.a().mr(), 0, 8, pair.a().peerAddress(), pair.a().peerRkey()));
            RoceAssertions.assertThat(pair.a().cq()).hasCompletions(WcStatus.SUCCESS);
        }
    }

    @Test
    void eachRepetitionKeepsItsOwnCaptureWhenCaptureIsAlways() throws Exception {
        Path directory = Path.of("target/roce4j-pcaps/ExtensionBehaviourTest$RepeatedWithCapture");
        for (int i = 1; i <= 2; i++) {
            Files.deleteIfExists(directory.resolve("twice-" + i + ".pcap"));
        }
        run(RepeatedWithCapture.class, "twice", Map.of()).assertStatistics(s -> s.succeeded(2).failed(0));
        for (int i = 1; i <= 2; i++) {
            StringBuilder frames = new StringBuilder();
            FailureReport.lastFramesPerQp(directory.resolve("twice-" + i + ".pcap"), 8, frames);
            assertThat(frames).contains("frames captured: 2", "RC RDMA Write Only", "RC Acknowledge");
        }
    }

    // ---- configuration errors -----------------------------------------------------------

    @EmulatedFabric(nodes = 1)
    static class OneNode {
        @Test
        void wantsTwo(Context a, Context b) {
        }
    }

    @Test
    void askingForMoreNodesThanTheFabricHasIsAParameterError() {
        Events events = run(OneNode.class, "wantsTwo", Map.of());
        events.assertStatistics(s -> s.failed(1));
        assertThat(failureOf(events)).hasMessageContaining("the fabric has 1 nodes, so there is no Context number 2");
    }

    @Test
    void aLinkPropertyOverridesTheAnnotation() {
        Events events = run(OnTheThreadedFabric.class, "sendArrives", Map.of("roce4j.testkit.link", "deterministic"));
        events.assertStatistics(s -> s.failed(1));
        assertThat(failureOf(events)).hasMessageContaining("Expecting value to be false but was true");
        assertThat(Optional.ofNullable(System.getProperty("roce4j.testkit.link"))).isEmpty();
        assertThat(List.of()).isEmpty();
    }

    @EmulatedFabric(link = Link.UDP_LOOPBACK, profile = DeviceProfile.RXE_6_1)
    static class RxeOnUdpLoopback {
        @Test
        void nodesModelTheProfile(TestFabric fabric) {
            org.assertj.core.api.Assertions.assertThat(fabric.node(0).rnic().model()).isSameAs(DeviceProfile.RXE_6_1.model());
            org.assertj.core.api.Assertions.assertThat(fabric.node(1).rnic().model()).isSameAs(DeviceProfile.RXE_6_1.model());
        }
    }

    @Test
    @DisplayName("a profile applies on the UDP link too, and -Droce4j.testkit.profile overrides the annotation's")
    void aProfilePropertyOverridesTheAnnotationOnEveryLink() {
        run(RxeOnUdpLoopback.class, "nodesModelTheProfile", Map.of()).assertStatistics(s -> s.succeeded(1).failed(0));
        Events overridden = run(RxeOnUdpLoopback.class, "nodesModelTheProfile", Map.of("roce4j.testkit.profile", "rxe-6.12"));
        overridden.assertStatistics(s -> s.failed(1));
        assertThat(failureOf(overridden)).hasMessageContaining("rxe-6.12");
        Events unknown = run(RxeOnUdpLoopback.class, "nodesModelTheProfile", Map.of("roce4j.testkit.profile", "mlx5"));
        unknown.assertStatistics(s -> s.failed(1));
        assertThat(failureOf(unknown)).hasMessageContaining("no device profile 'mlx5' (known: linux, rxe-6.1, rxe-6.12)");
    }
}
