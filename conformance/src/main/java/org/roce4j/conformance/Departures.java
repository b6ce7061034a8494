package org.roce4j.conformance;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.roce4j.verbs.Context;
import org.roce4j.verbs.Device;

/**
 * Tests a device is known to fail because it departs from IBTA (or from rdma-core's usual behaviour),
 * each with the exact outcome the device shows and a note saying why. The report calls a failure a
 * DEPARTURE, not a FAIL, only when the failed check observed that outcome (see
 * {@link Expect.UnexpectedOutcome}); any other failure of a listed test is a FAIL. A list is a text file:
 * {@code TEST-ID | CHECK: OBSERVED | [NOTE]} per line, where TEST-ID is {@code Class#method(ParameterTypes)}
 * followed, for a parameterized test, by {@code [its invocation's name]} (the parameter values, never
 * an index), {@code CHECK: OBSERVED} is the failed check and what the device did
 * ({@code modify RC RESET->ERR: EINVAL}, {@code status of wr_id 2: REM_INV_REQ_ERR}), and
 * {@code # [NOTE] text} comment paragraphs explain the notes. There are no blanket entries: a test that
 * fails only for some random examples is not listed, the property accepts the device's legal outcome
 * instead. The lists that come with the suite are resources {@code departures/NAME.txt}; {@code rxe} is
 * Linux Soft-RoCE's.
 *
 * @param name  what the list is of ("rxe", a file name, or "none")
 * @param tests the departures by test ID
 * @param notes the note paragraphs by their label ({@code [1]})
 */
public record Departures(String name, Map<String, Departure> tests, Map<String, String> notes) {
    /** rxe's vendor_id (the kernel's RXE_VENDOR_ID); the emulator reports it too, imitating rxe. */
    private static final int RXE_VENDOR_ID = 0xFFFFFF;
    private static final String EMULATOR_PROVIDER = "emulator";

    /**
     * One known departure.
     *
     * @param testId  the test it makes fail
     * @param outcome the failed check and what the device does, {@code CHECK: OBSERVED}
     * @param note    the label of the note that explains it ({@code [1]})
     */
    public record Departure(String testId, String outcome, String note) {
        /** {@return true when this failure is the listed one: its check observed the listed outcome} */
        boolean explains(String observedOutcome) {
            return outcome.equals(observedOutcome);
        }
    }

    public Departures {
        tests = Map.copyOf(tests);
        notes = Map.copyOf(notes);
    }

    /** {@return an empty list: every failure is a FAIL} */
    public static Departures none() {
        return new Departures("none", Map.of(), Map.of());
    }

    /**
     * {@return the list that comes with the suite under this name}
     *
     * @throws IllegalArgumentException when there is none
     */
    public static Departures named(String name) {
        try (InputStream in = Departures.class.getResourceAsStream("departures/" + name + ".txt")) {
            if (in == null) {
                throw new IllegalArgumentException("no departure list named '" + name + "' (known: rxe)");
            }
            return parse(name, new String(in.readAllBytes(), StandardCharsets.UTF_8).lines().toList());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** {@return the list in this file} */
    public static Departures read(Path file) throws IOException {
        return parse(file.getFileName().toString(), Files.readAllLines(file));
    }

    /**
     * {@return the list that applies to this device: rxe's for a real device with rxe's vendor_id, none
     * for the emulator (which follows IBTA) and any other device}
     */
    public static Departures forDevice(Device device) {
        if (device.providerName().equals(EMULATOR_PROVIDER)) {
            return none();
        }
        try (Context context = device.open()) {
            return context.queryDevice().vendorId() == RXE_VENDOR_ID ? named("rxe") : none();
        }
    }

    /** {@return the departure that explains this test's failure, if listed} */
    public Optional<Departure> of(String testId) {
        return Optional.ofNullable(tests.get(testId));
    }

    static Departures parse(String name, List<String> lines) {
        Map<String, Departure> tests = new LinkedHashMap<>();
        Map<String, String> notes = new LinkedHashMap<>();
        String openNote = null;
        for (int number = 1; number <= lines.size(); number++) {
            String line = lines.get(number - 1);
            if (line.startsWith("#")) {
                String text = line.substring(1).strip();
                if (text.startsWith("[") && text.indexOf(']') > 0) {
                    openNote = text.substring(0, text.indexOf(']') + 1);
                    notes.put(openNote, text);
                } else if (text.isEmpty()) {
                    openNote = null;
                } else if (openNote != null) {
                    notes.merge(openNote, text, (before, more) -> before + " " + more);
                }
                continue;
            }
            if (line.isBlank()) {
                continue;
            }
            openNote = null;
            String[] parts = line.split(" \\| ");
            if (parts.length != 3 || !parts[1].contains(": ")) {
                throw new IllegalArgumentException(name + ":" + number
                        + ": expected TEST-ID | CHECK: OBSERVED | [NOTE], got: " + line);
            }
            String testId = parts[0].strip();
            if (testId.startsWith("?")) {
                throw new IllegalArgumentException(name + ":" + number + ": '?' (a departure for some random "
                        + "examples) is no longer accepted: a blanket entry hides every other failure of the test");
            }
            if (tests.put(testId, new Departure(testId, parts[1].strip(), parts[2].strip())) != null) {
                throw new IllegalArgumentException(name + ":" + number + ": " + testId + " is listed twice");
            }
        }
        return new Departures(name, tests, notes);
    }
}
