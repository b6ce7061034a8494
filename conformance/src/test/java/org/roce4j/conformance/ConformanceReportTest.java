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
            "A#listed() | modify RC RESET->ERR: EINVAL | [1]",
            "A#other() | status of wr_id 2: LOC_QP_OP_ERR | [1]"));

    @Test
    @DisplayName("a listed test failing with its listed outcome is a DEPARTURE; failing any other way it is a FAIL")
    void onlyTheListedOutcomeIsADeparture() {
        var report = new ConformanceReport(rxe, false);
        var departure = report.record("A#listed()", "A: rule one", false, false,
                "modify RC RESET->ERR: expected success, observed EINVAL", "modify RC RESET->ERR: EINVAL");
        assertThat(departure.verdict()).isEqualTo(Verdict.DEPARTURE);
        assertThat(departure.line()).isEqualTo("DEPARTURE  A: rule one  -- rxe: modify RC RESET->ERR: EINVAL [1]");
        var otherOutcome = report.record("A#other()", "A: rule two", false, false,
                "status of wr_id 2: expected SUCCESS, observed REM_ACCESS_ERR", "status of wr_id 2: REM_ACCESS_ERR");
        var noOutcome = report.record("A#listed()", "A: rule one again", false, false, "NullPointerException", null);
        assertThat(otherOutcome.verdict()).isEqualTo(Verdict.FAIL);
        assertThat(otherOutcome.detail()).isEqualTo("listed as a rxe departure (status of wr_id 2: LOC_QP_OP_ERR) "
                + "but failed otherwise: status of wr_id 2: expected SUCCESS, observed REM_ACCESS_ERR");
        assertThat(noOutcome.verdict()).isEqualTo(Verdict.FAIL);
        assertThat(report.unexpected()).containsExactly(otherOutcome, noOutcome);
        assertThat(report.conforms(false)).isFalse();
    }

    @Test
    @DisplayName("an unlisted failure is a FAIL with its message; the notes of departures seen close the report")
    void failuresAreClassified() {
        var report = new ConformanceReport(rxe, false);
        report.record("A#listed()", "A: rule one", false, false, "expected success", "modify RC RESET->ERR: EINVAL");
        var fail = report.record("A#unlisted()", "A: rule two", false, false, "expected SUCCESS", null);
        assertThat(fail.line()).isEqualTo("FAIL       A: rule two  -- expected SUCCESS");
        report.record("A#passes()", "A: rule three", true, false, "", null);
        report.record("A#skipped()", "A: rule four", false, true, "skipped: no device", null);

        assertThat(report.unexpected()).containsExactly(fail);
        assertThat(report.closingLines()).containsSubsequence(
                "Departures of rxe seen in this run:",
                "  [1] RESET -> ERR: rxe answers EINVAL. IBTA 10.3.1 allows it.",
                "UNEXPECTED FAILURE  A#unlisted(): expected SUCCESS",
                "of the 2 failures 1 are known rxe departures, 1 are not; 0 listed departures now pass",
                "1 passed, 2 failed, 1 skipped");
    }

    @Test
    @DisplayName("a run in which no test ran does not conform, strict or not")
    void runOfNoTestDoesNotConform() {
        var empty = new ConformanceReport(Departures.none(), false);
        assertThat(empty.conforms(false)).isFalse();
        assertThat(empty.closingLines()).contains("NO TEST RAN: a conformance run must run at least one test");
        var onlySkipped = new ConformanceReport(Departures.none(), false);
        onlySkipped.record("A#skipped()", "A: rule", false, true, "skipped: disabled", null);
        assertThat(onlySkipped.conforms(false)).isFalse();
    }

    @Test
    @DisplayName("strict, whole suite: a listed departure whose test did not run fails the run (the list names a test that is gone)")
    void listedTestThatDidNotRunFailsAStrictWholeRun() {
        var whole = new ConformanceReport(rxe, true);
        whole.record("A#listed()", "A: rule one", false, false, "x", "modify RC RESET->ERR: EINVAL");
        assertThat(whole.unseen()).containsExactly("A#other()");
        assertThat(whole.conforms(false)).isTrue();
        assertThat(whole.conforms(true)).isFalse();
        assertThat(whole.closingLines()).contains("NOT RUN (listed departure, no such test)  A#other()");

        var selected = new ConformanceReport(rxe, false);
        selected.record("A#listed()", "A: rule one", false, false, "x", "modify RC RESET->ERR: EINVAL");
        assertThat(selected.unseen()).as("a run of selected tests need not run every listed one").isEmpty();
        assertThat(selected.conforms(true)).isTrue();
    }
}
