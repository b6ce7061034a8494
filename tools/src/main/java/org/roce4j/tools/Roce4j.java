package org.roce4j.tools;

import static java.nio.charset.StandardCharsets.UTF_8;

import java.io.BufferedWriter;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.stream.Stream;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * The {@code roce4j} command line. Each tool is a subcommand; add one by writing a picocli
 * command class and listing it in {@link #TOOLS}.
 *
 * <p>Exit codes: 0 success, 1 the input has a problem the tool exists to find (decode: a
 * malformed RoCE frame or a bad ICRC), 2 usage error or unreadable input, 3 internal error. Errors
 * are one line on stderr, never a stack trace.
 */
@Command(name = "roce4j",
        description = "RDMA verbs for Java with a software RoCEv2 RNIC: run the demo, decode, analyze and draw captures, capture and replay live traffic, "
                + "generate the project's captures, and talk to rdma-core's pingpong examples.")
// No subcommands here: they are TOOLS, added by commandLine, all of them or only the one a command line names.
public final class Roce4j implements Callable<Integer> {
    /**
     * The subcommands, in the order the help lists them. picocli builds a command's model by reflection over
     * its annotated fields; built for all of them that is a quarter of a run's start-up (0.2 of 0.76 s
     * interpreted, and a run in a qemu TCG VM starts 15-20 times slower), so a command line that names one
     * gets that one only (see {@link #commandLine(PrintWriter, PrintWriter, PeerEnvironment, String...)}).
     */
    static final List<Class<?>> TOOLS = List.of(DemoCommand.class, DecodeCommand.class, AnalyzeCommand.class,
            LadderCommand.class, CaptureCommand.class, ReplayCommand.class, GeneratePcapsCommand.class,
            PingpongCommand.Rc.class, PingpongCommand.Uc.class, PingpongCommand.Ud.class, PingpongCommand.Srq.class,
            PerftestCommand.WriteLat.class, PerftestCommand.WriteBw.class, PerftestCommand.ReadLat.class,
            PerftestCommand.ReadBw.class, PerftestCommand.SendLat.class, PerftestCommand.SendBw.class,
            PerftestCommand.AtomicLat.class, PerftestCommand.AtomicBw.class,
            RpingCommand.class, UdaddyCommand.class, McKeyCommand.class, WiresharkCommand.class,
            DevicesCommand.class, DevinfoCommand.class, ConformanceCommand.class, CommandLine.HelpCommand.class);

    static final int USAGE = 2;
    static final int INTERNAL_ERROR = 3;

    static {
        // pcap4j (capture, replay) brings the SLF4J API and no logger: SLF4J would then warn "No SLF4J providers"
        // on stderr the first time anyone asks for a logger, Netty included (the UDP link's peers). Its own no-op
        // provider, named, is silent; Netty still sees a no-op SLF4J and logs through java.util.logging as before
        // (InternalLoggerFactory: Slf4JLoggerFactory's NOP check).
        System.setProperty("slf4j.provider", "org.slf4j.helpers.NOP_FallbackServiceProvider");
        System.setProperty("slf4j.internal.verbosity", "ERROR");
    }

    @Option(names = {"-h", "--help"}, usageHelp = true, description = "show this help and exit")
    private boolean help;

    @Spec
    private CommandSpec spec;

    public static void main(String... args) {
        // UTF-8 whatever the locale (the summary line has an arrow); stdout buffered, flushed at the end.
        PrintWriter out = new PrintWriter(new BufferedWriter(new OutputStreamWriter(System.out, UTF_8)));
        PrintWriter err = new PrintWriter(new OutputStreamWriter(System.err, UTF_8), true);
        int exitCode = run(out, err, args);
        out.flush();
        err.flush();
        System.exit(exitCode);
    }

    /** Runs one command line, writing to {@code out} and {@code err}; returns the exit code. */
    static int run(PrintWriter out, PrintWriter err, String... args) {
        return run(out, err, PeerEnvironment.system(), args);
    }

    /** Runs one command line with the peer commands' devices (and server port) taken from {@code environment}. */
    static int run(PrintWriter out, PrintWriter err, PeerEnvironment environment, String... args) {
        int exitCode = commandLine(out, err, environment, args).execute(args);
        out.flush();
        err.flush();
        return exitCode;
    }

    static CommandLine commandLine(PrintWriter out, PrintWriter err) {
        return commandLine(out, err, PeerEnvironment.system());
    }

    /** The whole command line, every tool a subcommand. */
    static CommandLine commandLine(PrintWriter out, PrintWriter err, PeerEnvironment environment) {
        return commandLine(out, err, environment, TOOLS);
    }

    /**
     * The command line for {@code args}: when its first word names a tool (other than {@code help}), that
     * tool is the only subcommand; otherwise (no word, an option, {@code help}, a name nobody has) all are,
     * so that the help and the "missing command" and "unmatched argument" errors list every one.
     */
    static CommandLine commandLine(PrintWriter out, PrintWriter err, PeerEnvironment environment, String... args) {
        Optional<Class<?>> named = args.length == 0 ? Optional.empty() : TOOLS.stream()
                .filter(tool -> tool != CommandLine.HelpCommand.class && namesOf(tool).contains(args[0])).findFirst();
        return commandLine(out, err, environment, named.map(List::<Class<?>>of).orElse(TOOLS));
    }

    private static List<String> namesOf(Class<?> tool) {
        Command command = tool.getAnnotation(Command.class);
        return Stream.concat(Stream.of(command.name()), Stream.of(command.aliases())).toList();
    }

    private static CommandLine commandLine(PrintWriter out, PrintWriter err, PeerEnvironment environment,
            List<Class<?>> tools) {
        CommandLine.IFactory defaults = CommandLine.defaultFactory();
        CommandLine.IFactory factory = new CommandLine.IFactory() {
            @Override
            public <K> K create(Class<K> type) throws Exception {
                K made = defaults.create(type);
                if (made instanceof PeerCommand user) {
                    user.environment(environment);
                }
                return made;
            }
        };
        CommandLine commandLine = new CommandLine(new Roce4j(), factory);
        tools.forEach(commandLine::addSubcommand);
        commandLine.setOut(out);
        commandLine.setErr(err);
        commandLine.setParameterExceptionHandler((e, args) -> {
            CommandSpec failed = e.getCommandLine().getCommandSpec();
            e.getCommandLine().getErr().println(failed.qualifiedName() + ": " + oneLine(e.getMessage())
                    + " (see '" + failed.qualifiedName() + " --help')");
            return USAGE;
        });
        commandLine.setExecutionExceptionHandler((e, failed, parseResult) -> {
            failed.getErr().println(failed.getCommandSpec().qualifiedName() + ": internal error: " + oneLine(e.toString()));
            return INTERNAL_ERROR;
        });
        return commandLine;
    }

    /** Without a subcommand there is nothing to do: a usage error. */
    @Override
    public Integer call() {
        throw new ParameterException(spec.commandLine(),
                "missing command, one of: " + String.join(", ", spec.subcommands().keySet()));
    }

    /** Reports a failure that is the input's or the user's, not ours: one line, exit code 2. */
    static int fail(CommandSpec spec, String message) {
        spec.commandLine().getErr().println(spec.qualifiedName() + ": " + oneLine(message));
        return USAGE;
    }

    /** Reports a file that cannot be read: one line naming it and why ("no such file", ...), exit code 2. */
    static int failToRead(CommandSpec spec, java.nio.file.Path file, java.io.IOException e) {
        String why = e instanceof java.nio.file.NoSuchFileException ? "no such file"
                : e instanceof java.nio.file.AccessDeniedException ? "permission denied" : e.getMessage();
        return fail(spec, file + ": " + why);
    }

    private static String oneLine(String message) {
        return String.valueOf(message).replaceAll("\\s*\\R\\s*", " ").strip();
    }
}
