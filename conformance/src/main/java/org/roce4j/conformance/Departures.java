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
import java.util.regex.Matcher;
import java.util.regex.Pattern;

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
 * instead. The lists that come with the suite are resources {@code departures/NAME.txt}, one per
 * profile of the emulator that departs from the default ({@code rxe-6.1}, {@code rxe-6.12}: Linux
 * Soft-RoCE of that kernel): what the real device shows, which the emulated device with that profile
 * must show too.
 *
 * @param name  what the list is of ("rxe", a file name, or "none")
 * @param tests the departures by test ID
 * @param notes the note paragraphs by their label ({@code [1]})
 */
public record Departures(String name, Map<String, Departure> tests, Map<String, String> notes) {
    /** rxe's vendor_id (the kernel's RXE_VENDOR_ID); the emulator reports it too, imitating rxe. */
    private static final int RXE_VENDOR_ID = 0xFFFFFF;
    private static final String EMULATOR_PROVIDER = "emulator";
    private static final String RXE_PROFILE_PREFIX = "rxe-";
    /** The lists of Linux Soft-RoCE, oldest kernel first (the emulator's rxe profiles, DeviceProfile). */
    private static final List<String> RXE_PROFILES = List.of("rxe-6.1", "rxe-6.12");
    private static final Pattern KERNEL_SERIES = Pattern.compile("(\\d+)\\.(\\d+)");

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
                throw new IllegalArgumentException("no departure list named '" + name + "' (known: " + String.join(", ", RXE_PROFILES) + ")");
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
     * {@return the list that applies to a real device} One with rxe's vendor_id gets the list of the
     * rxe profile of the running kernel ({@link #rxeProfileOf}), any other device none. An emulated
     * device's list is its profile's ({@link #forProfile}), which the caller knows.
     */
    public static Departures forDevice(Device device) {
        if (device.providerName().equals(EMULATOR_PROVIDER)) {
            return none();
        }
        try (Context context = device.open()) {
            return context.queryDevice().vendorId() == RXE_VENDOR_ID
                    ? named(rxeProfileOf(System.getProperty("os.version"))) : none();
        }
    }

    /**
     * {@return the list of an emulated device with this profile ({@code rxe-6.1}, …): what the real
     * device it twins shows; none for a profile without one ({@code linux} departs from nothing)}
     */
    public static Departures forProfile(String profile) {
        return Departures.class.getResource("departures/" + profile + ".txt") != null ? named(profile) : none();
    }

    /**
     * {@return the rxe profile (its list's name) that describes the rxe of this Linux kernel release ({@code uname -r},
     * e.g. {@code 6.12.57+deb13-amd64}): the newest whose kernel is not newer than it, or the oldest
     * for an older kernel} rxe changes between kernels, so a kernel between two profiles gets the
     * older one's list, and the report names the list it used.
     */
    static String rxeProfileOf(String kernelRelease) {
        int[] running = kernelSeries(kernelRelease);
        String chosen = RXE_PROFILES.getFirst();
        for (String profile : RXE_PROFILES) {
            if (compare(kernelSeries(profile.substring(RXE_PROFILE_PREFIX.length())), running) <= 0) {
                chosen = profile;
            }
        }
        return chosen;
    }

    /** {@return major and minor of a kernel release, {0, 0} when it has none} */
    private static int[] kernelSeries(String release) {
        Matcher m = KERNEL_SERIES.matcher(release == null ? "" : release);
        return m.lookingAt() ? new int[] {Integer.parseInt(m.group(1)), Integer.parseInt(m.group(2))} : new int[] {0, 0};
    }

    private static int compare(int[] a, int[] b) {
        return a[0] != b[0] ? Integer.compare(a[0], b[0]) : Integer.compare(a[1], b[1]);
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
