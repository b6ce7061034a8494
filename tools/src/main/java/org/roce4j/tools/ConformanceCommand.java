package org.roce4j.tools;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

import org.roce4j.conformance.ConformanceReport;
import org.roce4j.conformance.ConformanceSuite;
import org.roce4j.conformance.Departures;
import org.roce4j.emulator.verbs.EmulatedDevice;
import org.roce4j.verbs.Device;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code roce4j conformance [-d DEV] [--departures LIST] [--strict] [--only REGEX] [-o FILE]}: runs the
 * conformance suite on one device (two contexts on it, loopback, as the suite does on a single real
 * RNIC) and prints a line per behaviour as it completes: PASS, FAIL, DEPARTURE or SKIPPED with the
 * rule checked, then the departures' notes and {@code N passed, N failed, N skipped}.
 */
@Command(name = "conformance", sortOptions = false,
        description = {"Runs roce4j's conformance suite (IBTA verbs and RoCEv2 transport behaviour) on a device:",
            "one line per behaviour (PASS, FAIL, DEPARTURE: a failure the device is known for, SKIPPED),",
            "last line 'N passed, N failed, N skipped'. Exit status 0 when some test ran and every failure",
            "is a listed departure with its listed outcome, 1 otherwise, 2 when the suite cannot run.", ""})
final class ConformanceCommand extends PeerCommand implements Callable<Integer> {
    private static final String AUTO = "auto";
    private static final String EXAMPLES_PROPERTY = "roce4j.properties.examples";

    @Option(names = {"-d", "--ib-dev"}, paramLabel = "DEV",
            description = "the device under test (default: the first device); emu:ADDRESS or emu:IFNAME for a UDP emulated "
                    + "RNIC, emu:ADDRESS?profile=rxe-6.1 for one that models Linux Soft-RoCE of kernel 6.1")
    private String ibDev;

    @Option(names = "--departures", paramLabel = "LIST", defaultValue = AUTO,
            description = "known departures: auto (for Linux Soft-RoCE the list of its kernel's rxe profile, for an "
                    + "emulated device its profile's, none for others), none, rxe-6.1, rxe-6.12, or a FILE of 'TEST-ID | CHECK: OBSERVED | [NOTE]' lines (default: ${DEFAULT-VALUE})")
    private String departuresOption;

    @Option(names = "--strict", description = "also fail when a listed departure passes, or does not run in a run of the whole suite "
            + "(the list must describe the device exactly)")
    private boolean strict;

    @Option(names = "--only", paramLabel = "REGEX",
            description = "run only the tests whose Class#method(ParameterTypes) contains a match, e.g. 'QpStateMachineTest|UdTest'")
    private String only;

    @Option(names = "--examples", paramLabel = "N",
            description = "random examples per property (default 100)")
    private Integer examples;

    @Option(names = {"-o", "--report"}, paramLabel = "FILE", description = "also write the report to FILE")
    private Path reportFile;

    @Option(names = {"-h", "--help"}, usageHelp = true, description = "show this help and exit")
    private boolean help;

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        if (examples != null && examples < 1) {
            return Roce4j.fail(spec, "--examples must be 1 or more");
        }
        if (only != null) {
            try {
                Pattern.compile(only);
            } catch (PatternSyntaxException e) {
                return Roce4j.fail(spec, "--only is not a regular expression: " + e.getDescription());
            }
        }
        DeviceSelector.Selection chosen;
        try {
            chosen = environment.devices().select(ibDev);
        } catch (DeviceSelector.NoSuchDevice e) {
            return Roce4j.fail(spec, e.getMessage());
        } catch (RuntimeException e) {   // an emu: device that cannot be made, a provider not available here
            return Roce4j.fail(spec, "cannot open device " + (ibDev == null ? "" : ibDev + " ") + "(" + e.getMessage() + ")");
        }
        try (DeviceSelector.Selection selection = chosen) {
            Device device = selection.device();
            Departures departures;
            try {
                departures = departures(device);
            } catch (IllegalArgumentException | IOException e) {
                return Roce4j.fail(spec, "--departures " + departuresOption + ": " + e.getMessage());
            }
            if (examples != null) {
                System.setProperty(EXAMPLES_PROPERTY, examples.toString());
            }
            List<String> lines = new ArrayList<>();
            print(out, lines, String.format("roce4j conformance: device %s (provider %s), two contexts on it; "
                    + "known departures: %s (%d listed)", device.name(), device.providerName(), departures.name(),
                    departures.tests().size()));
            ConformanceReport report = ConformanceSuite.run(device, departures, only, line -> print(out, lines, line));
            report.closingLines().forEach(line -> print(out, lines, line));
            if (reportFile != null) {
                Files.write(reportFile, lines);
            }
            return report.conforms(strict) ? 0 : 1;
        }
    }

    private Departures departures(Device device) throws IOException {
        return switch (departuresOption) {
            case AUTO -> device instanceof EmulatedDevice emulated
                    ? Departures.forProfile(emulated.model().name()) : Departures.forDevice(device);
            case "none" -> Departures.none();
            default -> Files.isRegularFile(Path.of(departuresOption))
                    ? Departures.read(Path.of(departuresOption))
                    : Departures.named(departuresOption);
        };
    }

    private static void print(PrintWriter out, List<String> lines, String line) {
        lines.add(line);
        out.println(line);
        out.flush();
    }
}
