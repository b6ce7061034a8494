package org.roce4j.tools;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import picocli.CommandLine;
import picocli.CommandLine.Command;

class Roce4jCommandLineTest {
    private static CommandLine commandLineFor(String... args) {
        return Roce4j.commandLine(new PrintWriter(new StringWriter()), new PrintWriter(new StringWriter()),
                PeerEnvironment.system(), args);
    }

    private static List<String> everyToolName() {
        return Roce4j.TOOLS.stream().map(tool -> tool.getAnnotation(Command.class).name()).toList();
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"decode", "write-bw", "rc-pingpong", "devinfo", "conformance"})
    @DisplayName("a command line that names a tool builds that tool alone: picocli models no other")
    void aNamedToolIsTheOnlySubcommand(String tool) {
        assertThat(commandLineFor(tool, "--help").getSubcommands().keySet()).containsExactly(tool);
    }

    @Test
    @DisplayName("without a tool's name (nothing, an option, help, a word no tool has) every tool is there, in order")
    void otherwiseEveryTool() {
        for (String[] args : List.of(new String[0], new String[] {"--help"}, new String[] {"help", "decode"},
                new String[] {"frobnicate"})) {
            assertThat(List.copyOf(commandLineFor(args).getSubcommands().keySet())).as(String.join(" ", args))
                    .isEqualTo(everyToolName());
        }
    }

    @Test
    @DisplayName("a word no tool has is a usage error that lists every tool, as with all of them built")
    void anUnknownToolListsThemAll() {
        TestCaptures.Run run = TestCaptures.run("frobnicate");

        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err()).startsWith("roce4j: Unmatched argument").contains("frobnicate");
        TestCaptures.Run none = TestCaptures.run();
        assertThat(none.err()).contains(String.join(", ", everyToolName()));
    }

    @Test
    @DisplayName("help TOOL still prints that tool's help")
    void helpOfATool() {
        TestCaptures.Run run = TestCaptures.run("help", "write-bw");

        assertThat(run.exitCode()).isZero();
        assertThat(run.out()).contains("Usage: roce4j write-bw");
    }
}
