package org.roce4j.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.roce4j.verbs.Device;
import org.roce4j.verbs.Verbs;

/** The suite run programmatically on one emulated device, as {@code roce4j conformance} runs it. */
class ConformanceSuiteTest {
    private static final String TRANSITIONS = "QpStateMachineTest#requiredMaskSucceeds";

    private final Device device = Verbs.provider("emulator").orElseThrow().devices().getFirst();

    @Test
    @DisplayName("on the emulator, loopback on one device: the selected tests pass, one line each, then the counts")
    void selectedTestsPassOnOneDevice() {
        List<String> lines = new ArrayList<>();
        ConformanceReport report = ConformanceSuite.run(device, Departures.none(), "DiscoveryTest|" + TRANSITIONS,
                lines::add);
        assertThat(report.unexpected()).isEmpty();
        assertThat(report.failed()).isZero();
        assertThat(report.passed()).isEqualTo(lines.size()).isGreaterThan(60);
        assertThat(lines).allMatch(line -> line.startsWith("PASS "));
        assertThat(lines).anyMatch(line -> line.startsWith("PASS       DiscoveryTest: ibv_query_port: port 0"));
        assertThat(report.outcomes()).extracting(ConformanceReport.Outcome::testId)
                .contains(TRANSITIONS + "(Transition)[RC INIT->ERR]", "DiscoveryTest#queryGid()");
        assertThat(report.closingLines().getLast())
                .isEqualTo(report.passed() + " passed, 0 failed, 0 skipped");
        assertThat(report.conforms(true)).isTrue();
    }

    @Test
    @DisplayName("a listed departure that passes is reported, and fails a strict run only")
    void listedDepartureThatPassesIsStale() {
        Departures listed = Departures.parse("mine", List.of(
                "# [1] a note", "DiscoveryTest#queryGid() | the call: EINVAL | [1]"));
        ConformanceReport report = ConformanceSuite.run(device, listed, "DiscoveryTest#queryGid\\(", line -> { });
        assertThat(report.outcomes()).singleElement().satisfies(outcome -> {
            assertThat(outcome.verdict()).isEqualTo(ConformanceReport.Verdict.PASS);
            assertThat(outcome.detail()).isEqualTo("listed as a mine departure (the call: EINVAL), passes");
        });
        assertThat(report.conforms(false)).isTrue();
        assertThat(report.conforms(true)).isFalse();
        assertThat(report.closingLines()).contains("NOW PASSES (listed departure)  DiscoveryTest#queryGid()");
    }

    @Test
    @DisplayName("a failure's outcome is the CHECK: OBSERVED of the UnexpectedOutcome it is or wraps; other failures have none")
    void failureOutcomeIsReadFromTheCheck() {
        var unexpected = new Expect.UnexpectedOutcome("modify RC RESET->ERR", "success", "EINVAL", null);
        assertThat(ConformanceSuite.unexpectedOutcome(unexpected)).hasValue("modify RC RESET->ERR: EINVAL");
        assertThat(ConformanceSuite.unexpectedOutcome(new IllegalStateException(unexpected)))
                .hasValue("modify RC RESET->ERR: EINVAL");
        assertThat(ConformanceSuite.unexpectedOutcome(new AssertionError("expected 1 but was 2"))).isEmpty();
    }

    @Test
    @DisplayName("--only matching no test: nothing ran, the run does not conform")
    void selectionOfNoTestDoesNotConform() {
        ConformanceReport report = ConformanceSuite.run(device, Departures.none(), "NoSuchTest", line -> { });
        assertThat(report.ran()).isZero();
        assertThat(report.conforms(false)).isFalse();
        assertThat(report.closingLines().getLast()).isEqualTo("0 passed, 0 failed, 0 skipped");
    }
}
