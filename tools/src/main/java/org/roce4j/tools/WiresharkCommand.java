package org.roce4j.tools;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code roce4j wireshark FILE}: Wireshark (or with {@code --tshark}, tshark) on a capture with roce4j's
 * configuration profile — the payload heuristics that misread RDMA payloads disabled, columns for QP,
 * PSN, opcode, AETH, ICRC and comments, colours for NAKs, RNR NAKs, retransmissions and the fault
 * plan's drops and corruptions. The profile's files are resources of this class's package
 * ({@code wireshark/}); {@code --profile-dir DIR} writes them where Wireshark's "Import profile" or a
 * copy into {@code ~/.config/wireshark/profiles/roce4j} picks them up.
 */
@Command(name = "wireshark",
        description = {
            "Opens a capture in Wireshark, or lists it with tshark (--tshark), with roce4j's Wireshark profile:",
            "payload heuristics that misread RDMA payloads (RPC-over-RDMA, iSER, SMB Direct, ...) disabled;",
            "columns QP, PSN, Opcode, AETH, ICRC and Comment (a roce4j pcapng capture's fault and retransmission",
            "notes); colours for NAKs, RNR NAKs, retransmissions and frames the fault plan dropped or corrupted.",
            "The profile lives in a temporary configuration folder for the run (WIRESHARK_CONFIG_DIR);",
            "--profile-dir writes it out to keep. Wireshark does not verify the ICRC: `roce4j decode` does.",
            ""},
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {"0:the tool ran and exited 0 (or the profile was written)", "1:the tool exited non-zero",
            "2:usage error, or the tool is not installed"})
final class WiresharkCommand implements Callable<Integer> {
    /** The profile's name, as Wireshark's -C takes it. */
    static final String PROFILE = "roce4j";
    /** The profile's files, resources next to this class under {@code wireshark/}. */
    static final List<String> PROFILE_FILES = List.of("preferences", "colorfilters", "heuristic_protos");

    @Parameters(index = "0", arity = "0..1", paramLabel = "FILE", description = "the capture (pcap or pcapng)")
    private Path file;

    @Parameters(index = "1..*", paramLabel = "ARG", description = "more arguments for the tool (after --), e.g. -- -Y 'infiniband.aeth.syndrome.opcode == 3'")
    private List<String> toolArguments = List.of();

    @Option(names = "--tshark", description = "list the frames with tshark on stdout (one line each, the profile's columns; --color colours them) instead of opening Wireshark")
    private boolean tshark;

    @Option(names = "--profile-dir", paramLabel = "DIR", description = "write the profile's files into DIR (created) and exit")
    private Path profileDir;

    @Option(names = {"-h", "--help"}, usageHelp = true, description = "show this help and exit")
    private boolean help;

    @Spec
    private CommandSpec spec;

    @Override
    public Integer call() throws IOException, InterruptedException {
        PrintWriter out = spec.commandLine().getOut();
        if (profileDir != null) {
            writeProfile(profileDir);
            out.println("wrote the " + PROFILE + " profile to " + profileDir);
            return 0;
        }
        if (file == null) {
            return Roce4j.fail(spec, "missing FILE (or --profile-dir DIR)");
        }
        Path config = Files.createTempDirectory("roce4j-wireshark");
        try {
            writeProfile(config.resolve("profiles").resolve(PROFILE));
            List<String> command = new ArrayList<>(List.of(tshark ? "tshark" : "wireshark", "-C", PROFILE, "-r",
                    file.toString()));
            if (tshark) {
                command.add("-n");
            }
            command.addAll(toolArguments);
            ProcessBuilder builder = new ProcessBuilder(command);
            builder.environment().put("WIRESHARK_CONFIG_DIR", config.toString());
            Process process;
            try {
                process = builder.redirectErrorStream(false).start();
            } catch (IOException e) {
                return Roce4j.fail(spec, command.getFirst() + " is not installed (Debian: apt-get install "
                        + (tshark ? "tshark" : "wireshark") + "): " + e.getMessage());
            }
            process.getOutputStream().close();
            Thread errors = Thread.ofPlatform().daemon().start(() -> copy(process.getErrorStream(),
                    spec.commandLine().getErr(), true));
            copy(process.getInputStream(), out, false);
            int exit = process.waitFor();
            errors.join();
            return exit == 0 ? 0 : 1;
        } finally {
            deleteTree(config);
        }
    }

    /** Writes the profile's files into {@code dir}, creating it. */
    static void writeProfile(Path dir) throws IOException {
        Files.createDirectories(dir);
        for (String name : PROFILE_FILES) {
            try (InputStream in = WiresharkCommand.class.getResourceAsStream("wireshark/" + name)) {
                if (in == null) {
                    throw new IllegalStateException("the " + PROFILE + " profile's " + name + " is missing from the jar");
                }
                Files.write(dir.resolve(name), in.readAllBytes());
            }
        }
    }

    /** Copies the tool's lines; tshark's warning about running as root is noise on a CI machine. */
    private static void copy(InputStream from, PrintWriter to, boolean skipRootWarning) {
        try (var lines = new java.io.BufferedReader(new java.io.InputStreamReader(from, StandardCharsets.UTF_8))) {
            for (String line = lines.readLine(); line != null; line = lines.readLine()) {
                if (!(skipRootWarning && line.startsWith("Running as user \"root\""))) {
                    to.println(line);
                }
            }
            to.flush();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void deleteTree(Path root) throws IOException {
        try (var paths = Files.walk(root)) {
            for (Path path : paths.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(path);
            }
        }
    }
}
