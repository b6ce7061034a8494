package org.roce4j.tools;

import static java.nio.charset.StandardCharsets.UTF_8;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The {@code roce4j} command lines the docs show (README.md and docs/*.md), as a reader would type
 * them: in a fenced code block, a line that starts with {@code roce4j} / {@code ./roce4j} (after a
 * {@code $ } prompt and {@code VAR=value} assignments); in prose, an inline code span that starts so;
 * in a table whose first column is headed "command" (docs/cli.md), each code span of that column, which
 * names a subcommand without the program's name. Output that merely mentions roce4j (a line that
 * does not start with it, one that starts {@code roce4j NAME:} as the tools' messages do, a span that
 * starts with a space) is not a command line.
 */
final class DocCommandLines {
    private DocCommandLines() {}

    /**
     * One documented command line: the arguments after {@code roce4j} (shell comment, redirection,
     * pipe and a trailing {@code &} cut off). A synopsis ({@code [--opt X]}, {@code a|b}) names options
     * but is no line to parse; a bare mention in prose ({@code `roce4j decode --verbose`}) may leave out
     * what a real line needs.
     */
    record Line(Path file, int number, String text, List<String> args, boolean synopsis, boolean inProse) {
        String where() {
            return file.getFileName() + ":" + number + ": `" + text + "`";
        }
    }

    /** The docs the test reads: README.md and every docs/*.md. */
    static List<Path> docs(Path root) throws IOException {
        List<Path> docs = new ArrayList<>();
        docs.add(root.resolve("README.md"));
        try (Stream<Path> files = Files.list(root.resolve("docs"))) {
            files.filter(f -> f.toString().endsWith(".md")).sorted().forEach(docs::add);
        }
        return docs;
    }

    private static final Pattern PROGRAM = Pattern.compile("^(?:\\$ )?(?:[A-Z_][A-Z0-9_]*=\\S*\\s+)*(?:\\S*/)?roce4j(?:\\s+(.*))?$");
    private static final Pattern CODE_SPAN = Pattern.compile("`([^`]+)`");
    private static final Pattern COMMAND_TABLE_HEADER = Pattern.compile("^\\|\\s*command\\s*\\|.*");

    static List<Line> in(Path doc) throws IOException {
        List<String> lines = Files.readAllLines(doc, UTF_8);
        List<Line> found = new ArrayList<>();
        boolean fenced = false;
        boolean commandTable = false;
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i);
            if (line.strip().startsWith("```")) {
                fenced = !fenced;
                continue;
            }
            if (fenced) {
                Matcher program = PROGRAM.matcher(line.strip());
                if (program.matches() && program.group(1) != null && !program.group(1).matches("\\S+:(\\s.*)?")) {
                    found.add(line(doc, i + 1, program.group(1), false));
                }
                continue;
            }
            commandTable = COMMAND_TABLE_HEADER.matcher(line).matches() || commandTable && line.startsWith("|");
            if (commandTable && line.startsWith("|") && !COMMAND_TABLE_HEADER.matcher(line).matches()) {
                String firstCell = line.replace("\\|", "\u0000").split("\\|", 3)[1].replace('\u0000', '|');
                Matcher span = CODE_SPAN.matcher(firstCell);
                while (span.find()) {
                    if (!span.group(1).startsWith("-")) {
                        found.add(line(doc, i + 1, span.group(1), false));
                    }
                }
                continue;
            }
            Matcher span = CODE_SPAN.matcher(line);
            while (span.find()) {
                Matcher program = PROGRAM.matcher(span.group(1));
                if (!span.group(1).startsWith(" ") && program.matches() && program.group(1) != null) {
                    found.add(line(doc, i + 1, program.group(1), true));
                }
            }
        }
        return found;
    }

    private static Line line(Path doc, int number, String afterProgram, boolean inProse) {
        String command = cutShell(afterProgram.replace("\\|", "|"));
        boolean synopsis = command.contains("[") || command.contains("|") || command.contains("…")
                || command.contains("...");
        return new Line(doc, number, command, synopsis ? List.of(command.split("\\s+")) : words(command), synopsis,
                inProse);
    }

    /** The command itself: no comment, no redirection or pipe into another program, no {@code &}. */
    private static String cutShell(String text) {
        String command = text.replaceFirst("\\s+#.*$", "");
        if (!command.contains("[")) { // a synopsis's '|' separates alternatives, not programs
            command = command.replaceFirst("\\s*(\\|\\|?|&&|;|[0-9]?>|<).*$", "");
        }
        return command.replaceFirst("\\s*&\\s*$", "").strip();
    }

    /** Shell words: white space separates, quotes group. */
    private static List<String> words(String command) {
        List<String> words = new ArrayList<>();
        Matcher word = Pattern.compile("'([^']*)'|\"([^\"]*)\"|(\\S+)").matcher(command);
        while (word.find()) {
            words.add(word.group(1) != null ? word.group(1) : word.group(2) != null ? word.group(2) : word.group(3));
        }
        return words;
    }
}
