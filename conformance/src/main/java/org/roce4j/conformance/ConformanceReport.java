package org.roce4j.conformance;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * The outcome of a conformance run on one device: a line per behaviour (its test's display name names
 * the IBTA rule or rdma-core behaviour it checks) with PASS, FAIL, DEPARTURE (a failure the device's
 * {@link Departures} list explains: the listed check observed the listed outcome) or SKIPPED, then the
 * notes of the departures seen, the failures no list explains, and a last line
 * {@code N passed, N failed, N skipped} (departures count as failed: the device does not do what the
 * rule says). A run that ran no test does not conform; neither does a run of the whole suite in which a
 * listed departure's test never ran (the list names a test that is gone).
 */
public final class ConformanceReport {
    /** What became of one test. */
    public enum Verdict { PASS, FAIL, DEPARTURE, SKIPPED }

    /**
     * One test's outcome.
     *
     * @param testId    {@code Class#method(ParameterTypes)}, {@code [invocation name]} for a parameterized test
     * @param behaviour the class and the display name: the rule checked
     * @param verdict   the verdict
     * @param detail    for a FAIL the failure's message, for a DEPARTURE what the device does and the
     *                  note, for a PASS of a listed departure that it is listed; else empty
     */
    public record Outcome(String testId, String behaviour, Verdict verdict, String detail) {
        /** {@return the report's line for it} */
        public String line() {
            return String.format("%-10s %s%s", verdict, behaviour, detail.isEmpty() ? "" : "  -- " + detail);
        }
    }

    private final Departures departures;
    private final boolean wholeSuite;
    private final List<Outcome> outcomes = new ArrayList<>();

    /**
     * @param wholeSuite true when the run is of every test (no {@code --only}): then every listed
     *                   departure's test must have run
     */
    ConformanceReport(Departures departures, boolean wholeSuite) {
        this.departures = departures;
        this.wholeSuite = wholeSuite;
    }

    /**
     * Records a test's result and {@return its outcome}, classified against the departure list.
     *
     * @param observed for a failure that is an {@link Expect.UnexpectedOutcome}, its
     *                 {@code CHECK: OBSERVED}; else null
     */
    Outcome record(String testId, String behaviour, boolean passed, boolean skipped, String failure, String observed) {
        var departure = departures.of(testId);
        Outcome outcome;
        if (skipped) {
            outcome = new Outcome(testId, behaviour, Verdict.SKIPPED, failure);
        } else if (passed) {
            outcome = new Outcome(testId, behaviour, Verdict.PASS, departure
                    .map(listed -> "listed as a " + departures.name() + " departure (" + listed.outcome() + "), passes")
                    .orElse(""));
        } else if (departure.isPresent() && departure.get().explains(observed)) {
            outcome = new Outcome(testId, behaviour, Verdict.DEPARTURE,
                    departures.name() + ": " + departure.get().outcome() + " " + departure.get().note());
        } else {
            outcome = new Outcome(testId, behaviour, Verdict.FAIL, departure
                    .map(listed -> "listed as a " + departures.name() + " departure (" + listed.outcome()
                            + ") but failed otherwise: " + failure)
                    .orElse(failure));
        }
        outcomes.add(outcome);
        return outcome;
    }

    /** {@return every outcome, in the order the tests ran} */
    public List<Outcome> outcomes() {
        return List.copyOf(outcomes);
    }

    public long passed() {
        return count(Verdict.PASS);
    }

    /** {@return the failures, departures included} */
    public long failed() {
        return count(Verdict.FAIL) + count(Verdict.DEPARTURE);
    }

    public long skipped() {
        return count(Verdict.SKIPPED);
    }

    /** {@return the failures no departure list explains} */
    public List<Outcome> unexpected() {
        return outcomes.stream().filter(o -> o.verdict() == Verdict.FAIL).toList();
    }

    /** {@return listed departures that passed although they should fail on such a device} */
    public List<Outcome> stale() {
        return outcomes.stream().filter(o -> o.verdict() == Verdict.PASS)
                .filter(o -> departures.of(o.testId()).isPresent()).toList();
    }

    /** {@return the tests that ran (passed or failed), skipped ones not counted} */
    public long ran() {
        return outcomes.size() - skipped();
    }

    /** {@return the listed departures whose test did not run, in a run of the whole suite (else none)} */
    public List<String> unseen() {
        if (!wholeSuite) {
            return List.of();
        }
        Set<String> seen = new java.util.HashSet<>();
        outcomes.forEach(o -> seen.add(o.testId()));
        return departures.tests().keySet().stream().filter(id -> !seen.contains(id)).sorted().toList();
    }

    /**
     * {@return true when some test ran and every failure is a listed departure with its listed outcome;
     * when strict, also no listed departure passed or, in a run of the whole suite, failed to run (the
     * list describes the device exactly)}
     */
    public boolean conforms(boolean strict) {
        return ran() > 0 && unexpected().isEmpty() && (!strict || stale().isEmpty() && unseen().isEmpty());
    }

    /** {@return the lines that close the report: notes, unexplained failures, stale departures, counts} */
    public List<String> closingLines() {
        List<String> lines = new ArrayList<>();
        Set<String> notesSeen = new TreeSet<>(Comparator.comparing(ConformanceReport::noteNumber)
                .thenComparing(Comparator.naturalOrder()));
        outcomes.stream().filter(o -> o.verdict() == Verdict.DEPARTURE)
                .forEach(o -> notesSeen.add(departures.of(o.testId()).orElseThrow().note()));
        if (!notesSeen.isEmpty()) {
            lines.add("");
            lines.add("Departures of " + departures.name() + " seen in this run:");
            notesSeen.forEach(note -> lines.add("  " + departures.notes().getOrDefault(note, note)));
        }
        lines.add("");
        unexpected().forEach(o -> lines.add("UNEXPECTED FAILURE  " + o.testId() + ": " + o.detail()));
        stale().forEach(o -> lines.add("NOW PASSES (listed departure)  " + o.testId()));
        unseen().forEach(id -> lines.add("NOT RUN (listed departure, no such test)  " + id));
        if (ran() == 0) {
            lines.add("NO TEST RAN: a conformance run must run at least one test");
        }
        lines.add(departures.tests().isEmpty() ? "no list of known departures applies to this device"
                : String.format("of the %d failures %d are known %s departures, %d are not; %d listed departures now pass",
                        failed(), count(Verdict.DEPARTURE), departures.name(), unexpected().size(), stale().size())
                        + (unseen().isEmpty() ? "" : ", " + unseen().size() + " did not run"));
        lines.add(String.format("%d passed, %d failed, %d skipped", passed(), failed(), skipped()));
        return lines;
    }

    /** {@code [12]} → 12, so that notes print in their list's order; other labels last. */
    private static int noteNumber(String note) {
        String digits = note.replaceAll("[^0-9]", "");
        return digits.isEmpty() || digits.length() > 6 ? Integer.MAX_VALUE : Integer.parseInt(digits);
    }

    private long count(Verdict verdict) {
        return outcomes.stream().filter(o -> o.verdict() == verdict).count();
    }
}
