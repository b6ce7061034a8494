package org.roce4j.tools;

import static java.nio.charset.StandardCharsets.UTF_8;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * A Markdown doc's prose as sentences, each with the line it starts on: code blocks left out, a list
 * item, table row or heading ends a paragraph, and a sentence ends at '.', '!' or '?' before a capital.
 * Under a heading that says what is not there yet ("## Not yet", "What does not work yet") each
 * sentence carries the heading in front, since the heading is what says its items are missing.
 */
final class DocSentences {
    private DocSentences() {}

    record Sentence(int line, String text) {}

    private static final Pattern BLOCK_START = Pattern.compile("^\\s*(?:[-*] |\\d+\\. |\\||#).*");
    private static final Pattern SENTENCE_END = Pattern.compile("(?<=[.!?])\\s+(?=[A-Z`(\\[*])");
    private static final Pattern ABSENCE_HEADING = Pattern.compile("(?i)^#+ .*\\bnot (?:work |there )?yet\\b.*");

    static List<Sentence> in(Path doc) throws IOException {
        List<String> lines = Files.readAllLines(doc, UTF_8);
        List<Sentence> sentences = new ArrayList<>();
        StringBuilder block = new StringBuilder();
        List<Integer> starts = new ArrayList<>(); // block offset → line, one entry per line
        String heading = "";
        boolean fenced = false;
        int blockLine = 0;
        for (int i = 0; i <= lines.size(); i++) {
            String line = i < lines.size() ? lines.get(i) : "";
            if (line.strip().startsWith("```")) {
                fenced = !fenced;
            }
            boolean ends = fenced || line.isBlank() || line.strip().startsWith("```") || BLOCK_START.matcher(line).matches();
            if (ends && !block.isEmpty()) {
                split(block.toString(), blockLine, starts, heading, sentences);
                block.setLength(0);
                starts.clear();
            }
            if (fenced || line.isBlank() || line.strip().startsWith("```")) {
                continue;
            }
            if (line.startsWith("#")) {
                heading = ABSENCE_HEADING.matcher(line).matches() ? line.replaceFirst("^#+ ", "") + ": " : "";
            }
            if (block.isEmpty()) {
                blockLine = i + 1;
            }
            starts.add(block.length());
            block.append(line.strip()).append(' ');
        }
        return sentences;
    }

    private static void split(String block, int firstLine, List<Integer> starts, String heading, List<Sentence> out) {
        var end = SENTENCE_END.matcher(block);
        int from = 0;
        while (true) {
            boolean found = end.find();
            int to = found ? end.start() : block.length();
            String text = block.substring(from, to).strip();
            if (!text.isEmpty()) {
                out.add(new Sentence(firstLine + lineOf(starts, from), heading + text));
            }
            if (!found) {
                return;
            }
            from = end.end();
        }
    }

    private static int lineOf(List<Integer> starts, int offset) {
        int line = 0;
        while (line + 1 < starts.size() && starts.get(line + 1) <= offset) {
            line++;
        }
        return line;
    }
}
