package org.roce4j.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.roce4j.conformance.ConformanceReport.Verdict;

class ConformanceReportTest {
    private final Departures rxe = Departures.parse("rxe", List.of(
            "# [1] RESET -> ERR: rxe answers EINVAL.",
            "#     IBTA 10.3.1 allows it.",
            "A#listed() | EINVAL | [1]",
            "?A#sometimes() | LOC_QP_OP_ERR | [1]"));

    @Test
    @DisplayName("a listed failure is a DEPARTURE with the device's behaviour, an unlisted one a FAIL with its message")
    void failuresAreClassified() {
        var report = new ConformanceReport(rxe);
        assertThat(report.record("A#listed()", "A: rule one", false, false, "expected 0 got 22").verdict())
                .isEqualTo(Verdict.DEPARTURE);
        var fail = report.record("A#other()", "A: rule two", false, false, "expected SUCCESS");
        assertThat(fail.line()).isEqualTo("FAIL       A: rule two  -- expected SUCCESS");
        report.record("A#sometimes()", "A: rule three", true, false, "");
        report.record("A#skipped()", "A: rule four", false, true, "skipped: no device");

        assertThat(report.outcomes().getFirst().line())
                .isEqualTo("DEPARTURE  A: rule one  -- rxe: EINVAL [1]");
        assertThat(report.unexpected()).containsExactly(fail);
        assertThat(report.stale()).as("a '?' property may pass").isEmpty();
        assertThat(report.conforms(false)).isFalse();
        assertThat(report.closingLines()).containsSubsequence(
                "Departures of rxe seen in this run:",
                "  [1] RESET -> ERR: rxe answers EINVAL. IBTA 10.3.1 allows it.",
                "UNEXPECTED FAILURE  A#other(): expected SUCCESS",
                "of the 2 failures 1 are known rxe departures, 1 are not; 0 listed departures now pass",
                "1 passed, 2 failed, 1 skipped");
    }
}
