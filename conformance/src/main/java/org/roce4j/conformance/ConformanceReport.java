package org.roce4j.conformance;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * The outcome of a conformance run on one device: a line per behaviour (its test's display name names
 * the IBTA rule or rdma-core behaviour it checks) with PASS, FAIL, DEPARTURE (a failure the device's
 * {@link Departures} list explains) or SKIPPED, then the notes of the departures seen, the failures
 * no list explains, and a last line {@code N passed, N failed, N skipped} (departures count as failed:
 * the device does not do what the rule says).
 */
public final class ConformanceReport {
    /** What became of one test. */
    public enum Verdict { PASS, FAIL, DEPARTURE, SKIPPED }

    /**
     * One test's outcome.
     *
     * @param testId    {@code Class#method(ParameterTypes)[invocation]}
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
    private final List<Outcome> outcomes = new ArrayList<>();

    ConformanceReport(Departures departures) {
        this.departures = departures;
    }

    /** Records a test's result and {@return its outcome}, classified against the departure list. */
    Outcome record(String testId, String behaviour, boolean passed, boolean skipped, String failure) {
        var departure = departures.of(testId);
        Outcome outcome;
        if (skipped) {
            outcome = new Outcome(testId, behaviour, Verdict.SKIPPED, failure);
        } else if (passed) {
            outcome = new Outcome(testId, behaviour, Verdict.PASS, departure
                    .map(listed -> "listed as a " + departures.name() + " departure (" + listed.behaviour()
                            + "), passes" + (listed.sometimes() ? " with these examples" : ""))
                    .orElse(""));
        } else {
            outcome = departure
                    .map(listed -> new Outcome(testId, behaviour, Verdict.DEPARTURE,
                            departures.name() + ": " + listed.behaviour() + " " + listed.note()))
                    .orElseGet(() -> new Outcome(testId, behaviour, Verdict.FAIL, failure));
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

    /** {@return listed departures that passed although they always should fail on such a device} */
    public List<Outcome> stale() {
        return outcomes.stream().filter(o -> o.verdict() == Verdict.PASS)
                .filter(o -> departures.of(o.testId()).filter(d -> !d.sometimes()).isPresent()).toList();
    }

    /**
     * {@return true when every failure is a listed departure; when strict, also no listed departure
     * passed (the list describes the device exactly)}
     */
    public boolean conforms(boolean strict) {
        return unexpected().isEmpty() && (!strict || stale().isEmpty());
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
        lines.add(departures.tests().isEmpty() ? "no list of known departures applies to this device"
                : String.format("of the %d failures %d are known %s departures, %d are not; %d listed departures now pass",
                        failed(), count(Verdict.DEPARTURE), departures.name(), unexpected().size(), stale().size()));
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
