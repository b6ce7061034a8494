package org.roce4j.tools;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.Writer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code roce4j generate-pcaps [DIR]}: writes the captures the project generates itself. */
@Command(name = "generate-pcaps",
        description = {
            "Writes the captures the project generates itself, reproducible byte for byte.",
            "",
            "  " + AllOpcodesCapture.IPV4_FILE + "       one RoCEv2 frame for every opcode, over IPv4",
            "  " + AllOpcodesCapture.IPV6_FILE + "  the same frames over IPv6",
            "  " + AllOpcodesCapture.ROCE_V1_FILE + " the same packets over RoCEv1 (EtherType 0x8915, GRH)",
            "  " + AllOpcodesCapture.INFINIBAND_FILE + "    the same packets on InfiniBand (LRH, VCRC; ERF, as ibdump writes)",
            "  " + AllOpcodesCapture.INFINIBAND_GRH_FILE + " the same with a GRH after the LRH",
            "  " + DemoCommand.DEFAULT_FILE + "                what 'roce4j demo' does, frame by frame",
            ""})
final class GeneratePcapsCommand implements Callable<Integer> {
    /** Set by the ./roce4j launcher: the repository root, whose pcaps/ is the default DIR. */
    static final String REPO_ROOT_PROPERTY = "roce4j.repo.root";

    @Parameters(arity = "0..1", paramLabel = "DIR",
            description = "where to write them (created if missing; default: the repository's pcaps/)")
    private Path dir;

    @Option(names = {"-h", "--help"}, usageHelp = true, description = "show this help and exit")
    private boolean help;

    @Spec
    private CommandSpec spec;

    @Override
    public Integer call() {
        Path target = dir != null ? dir : defaultDirectory();
        try {
            Files.createDirectories(target);
            for (Path file : AllOpcodesCapture.writeAll(target)) {
                spec.commandLine().getOut().println("wrote " + file);
            }
            Path demo = target.resolve(DemoCommand.DEFAULT_FILE);
            if (!DemoCommand.run(demo, DemoCommand.DEFAULT_MTU, new PrintWriter(Writer.nullWriter()))) {
                return Roce4j.fail(spec, demo + ": the demo did not run correctly; run 'roce4j demo' to see why");
            }
            spec.commandLine().getOut().println("wrote " + demo);
            return 0;
        } catch (IOException e) {
            return Roce4j.fail(spec, target + ": " + e);
        }
    }

    private static Path defaultDirectory() {
        String root = System.getProperty(REPO_ROOT_PROPERTY);
        return root == null || root.isBlank() ? Path.of("pcaps") : Path.of(root, "pcaps");
    }
}
