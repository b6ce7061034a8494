package org.roce4j.tools;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * The docs (README.md, docs/*.md) say nothing stale: no work described as under way, no feature the
 * code has called missing, and every {@code roce4j} command line they show ({@link DocCommandLines})
 * names a subcommand and options the command line really has (parsed by picocli, never run, but for
 * the lines that read a committed sample, which run). A failure names the doc file and line.
 */
class DocsStayTrueTest {
    /**
     * Words that describe work as under way or planned. A merged doc describes what is: a thing that
     * is absent is said to be absent ("roce4j has no …", "… is not implemented"), so each of these is
     * stale the day the work lands, and docs/api-mapping.md's "is being written" about the ibverbs
     * backend was exactly that (issue 21).
     */
    private static final Map<String, String> UNDER_WAY = Map.of(
            "being written", "the ibverbs backend's stale note (issue 21)",
            "being implemented", "the same promise in other words",
            "not yet implemented", "a promise, not a statement of what is",
            "not implemented yet", "a promise, not a statement of what is",
            "is in progress", "an issue's state belongs in the issue, and it goes stale when merged",
            "work in progress", "the same",
            "coming soon", "a promise",
            "will be added", "a promise",
            "TODO", "a note to the writer, not to the reader",
            "TBD", "a note to the writer, not to the reader");

    /**
     * Features the code has, each with the API that proves it (looked up by reflection, so the row
     * fails to load when the feature goes). A doc sentence that names one of them and says it is not
     * implemented, not built or "not yet" is stale.
     */
    private static final List<Feature> FEATURES = List.of(
            new Feature("memory windows?", "org.roce4j.verbs.Pd", "allocMw"),
            new Feature("SRQ resize", "org.roce4j.verbs.SrqAttrMask", "MAX_WR"),
            new Feature("multicast joins?|rdma_join_multicast", "org.roce4j.cm.CmId", "joinMulticast"),
            new Feature("FLUSH", "org.roce4j.verbs.WrOpcode", "FLUSH"),
            new Feature("ATOMIC WRITE", "org.roce4j.verbs.WrOpcode", "ATOMIC_WRITE"),
            new Feature("on-demand paging|ODP", "org.roce4j.verbs.OdpCaps", null),
            new Feature("ibverbs backend", "org.roce4j.ibverbs.IbverbsProvider", null),
            new Feature("pcapng", "org.roce4j.wire.pcap.PcapngWriter", null),
            new Feature("roce4j wireshark", "org.roce4j.tools.WiresharkCommand", null),
            new Feature("zero-based (?:memory )?windows?", "org.roce4j.verbs.AccessFlag", "ZERO_BASED"));

    private static final Pattern ABSENT =
            Pattern.compile("(?i)\\bnot (?:yet )?(?:implemented|built|written)\\b|\\bnot yet\\b");

    record Feature(String words, String className, String member) {
        Pattern pattern() {
            return Pattern.compile("(?i)\\b(?:" + words + ")\\b");
        }

        /** The class and member that prove the feature exists (a failure here means the row is stale). */
        void assertExists() throws ReflectiveOperationException {
            Class<?> type = Class.forName(className);
            if (member != null && List.of(type.getMethods()).stream().noneMatch(m -> m.getName().equals(member))) {
                type.getField(member);
            }
        }
    }

    @Test
    @DisplayName("no doc describes work as under way or planned ('being written', 'not yet implemented', 'TODO', …)")
    void noDocDescribesWorkAsUnderWay() throws IOException {
        List<String> stale = new ArrayList<>();
        for (Path doc : DocCommandLines.docs(TestCaptures.repoRoot())) {
            List<String> lines = Files.readAllLines(doc, UTF_8);
            for (int i = 0; i < lines.size(); i++) {
                for (var phrase : UNDER_WAY.entrySet()) {
                    if (Pattern.compile("(?i)\\b" + Pattern.quote(phrase.getKey()) + "\\b").matcher(lines.get(i)).find()) {
                        stale.add(doc.getFileName() + ":" + (i + 1) + ": '" + phrase.getKey() + "' (" + phrase.getValue()
                                + "): " + lines.get(i).strip());
                    }
                }
            }
        }
        assertThat(stale).as("stale statements").isEmpty();
    }

    @Test
    @DisplayName("no doc says a feature the code has (memory windows, SRQ resize, multicast joins, FLUSH, ODP, …) is not "
            + "implemented or not there yet")
    void noDocCallsAnExistingFeatureMissing() throws Exception {
        for (Feature feature : FEATURES) {
            feature.assertExists();
        }
        List<String> stale = new ArrayList<>();
        for (Path doc : DocCommandLines.docs(TestCaptures.repoRoot())) {
            for (DocSentences.Sentence sentence : DocSentences.in(doc)) {
                if (!ABSENT.matcher(sentence.text()).find()) {
                    continue;
                }
                for (Feature feature : FEATURES) {
                    Matcher named = feature.pattern().matcher(sentence.text());
                    if (named.find()) {
                        stale.add(doc.getFileName() + ":" + sentence.line() + ": says '" + named.group()
                                + "' is missing, but " + feature.className() + (feature.member() == null ? ""
                                : "." + feature.member()) + " exists: " + sentence.text());
                    }
                }
            }
        }
        assertThat(stale).as("statements that an existing feature is missing").isEmpty();
    }

    @Test
    @DisplayName("every roce4j command line in the docs names a real subcommand and real options (picocli parses it; "
            + "a synopsis's options are looked up)")
    void everyDocumentedCommandLineParses() throws IOException {
        List<String> wrong = new ArrayList<>();
        int checked = 0;
        for (Path doc : DocCommandLines.docs(TestCaptures.repoRoot())) {
            for (DocCommandLines.Line line : DocCommandLines.in(doc)) {
                checked++;
                problem(line).ifPresent(problem -> wrong.add(line.where() + ": " + problem));
            }
        }
        assertThat(checked).as("command lines found in the docs").isGreaterThan(50);
        assertThat(wrong).as("documented command lines the CLI does not accept").isEmpty();
    }

    @Test
    @DisplayName("every subcommand answers --help with its usage and exit 0")
    void everySubcommandAnswersHelp() {
        CommandLine cli = Roce4j.commandLine(new PrintWriter(new StringWriter()), new PrintWriter(new StringWriter()));
        assertThat(cli.getSubcommands()).containsKeys("demo", "decode", "mckey", "udaddy", "conformance", "wireshark");
        for (String name : cli.getSubcommands().keySet()) {
            StringWriter out = new StringWriter();
            StringWriter err = new StringWriter();
            int exit = Roce4j.run(new PrintWriter(out), new PrintWriter(err), name, "--help");
            assertThat(exit).as("roce4j %s --help: %s", name, err).isZero();
            assertThat(out.toString()).as("roce4j %s --help", name).contains("Usage: roce4j " + name);
        }
    }

    @Test
    @DisplayName("a documented line that reads a committed sample (roce4j decode pcaps/…) runs and exits 0")
    void documentedLinesOnCommittedSamplesRun() throws IOException {
        Path root = TestCaptures.repoRoot();
        int ran = 0;
        for (Path doc : DocCommandLines.docs(root)) {
            for (DocCommandLines.Line line : DocCommandLines.in(doc)) {
                List<String> args = onCommittedSample(root, line);
                if (args.isEmpty()) {
                    continue;
                }
                StringWriter out = new StringWriter();
                StringWriter err = new StringWriter();
                int exit = Roce4j.run(new PrintWriter(out), new PrintWriter(err), args.toArray(String[]::new));
                assertThat(exit).as("%s exited %d: %s", line.where(), exit, err).isZero();
                assertThat(out.toString()).as(line.where()).isNotBlank();
                ran++;
            }
        }
        assertThat(ran).as("documented lines on committed samples").isPositive();
    }

    /** What is wrong with a documented line, if anything. */
    static java.util.Optional<String> problem(DocCommandLines.Line line) {
        CommandLine cli = Roce4j.commandLine(new PrintWriter(new StringWriter()), new PrintWriter(new StringWriter()));
        if (line.args().isEmpty()) {
            return java.util.Optional.empty(); // `roce4j` alone: the program's name
        }
        String name = line.args().getFirst();
        if (line.synopsis()) {
            CommandLine sub = cli.getSubcommands().get(name);
            if (sub == null) {
                return java.util.Optional.of("no subcommand '" + name + "'");
            }
            for (String word : line.args().subList(1, line.args().size())) {
                for (String part : word.replaceAll("[\\[\\]()]", "").split("\\|")) {
                    String option = part.replaceFirst("=.*", "");
                    if (option.matches("--?[A-Za-z][\\w-]*") && sub.getCommandSpec().findOption(option) == null) {
                        return java.util.Optional.of("roce4j " + name + " has no option " + option);
                    }
                }
            }
            return java.util.Optional.empty();
        }
        try {
            cli.parseArgs(line.args().toArray(String[]::new));
            return java.util.Optional.empty();
        } catch (CommandLine.MissingParameterException fragment) {
            // a mention in prose (`roce4j decode --verbose`) may leave out what a line needs; a code block may not
            return line.inProse() ? java.util.Optional.empty() : java.util.Optional.of(fragment.getMessage());
        } catch (CommandLine.ParameterException e) {
            return java.util.Optional.of(e.getMessage());
        }
    }

    /** decode's arguments with each file made absolute, when every file the line names is committed; else none. */
    private static List<String> onCommittedSample(Path root, DocCommandLines.Line line) {
        if (line.synopsis() || line.args().size() < 2 || !line.args().getFirst().equals("decode")) {
            return List.of();
        }
        List<String> args = new ArrayList<>();
        if (line.args().stream().skip(1).allMatch(arg -> arg.startsWith("-"))) {
            return List.of(); // `roce4j decode --verbose`: a mention, no file to read
        }
        for (String arg : line.args()) {
            if (arg.equals("decode") || arg.startsWith("-")) {
                args.add(arg);
            } else if (Files.isRegularFile(root.resolve(arg))) {
                args.add(root.resolve(arg).toString());
            } else {
                return List.of();
            }
        }
        return args;
    }
}
