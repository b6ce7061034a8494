package org.roce4j.testkit;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The files docs/getting-started.md gives a user, read from the page itself: a line that is only a
 * file name in backticks and a colon ({@code `pom.xml`:}) followed by a fenced block is that file.
 * And the page's command that writes the Maven wrapper ({@code mvn -N ...maven-wrapper-plugin...}).
 *
 * <p>The one reader of that convention: {@code GettingStartedShowsTheUserProjectTest} compares the
 * page with testkit/src/it/user-project, and {@code .ci/first-hour} runs this file as a program
 * ({@code java GettingStartedPage.java PAGE [DIR]}: prints the wrapper command, or writes the page's
 * files under DIR), so that CI builds what the page says, not what the repository holds. Only the
 * JDK is imported, for that reason.
 */
final class GettingStartedPage {
    private static final Pattern FILE_NAME = Pattern.compile("^`([^`]+)`:$");
    private static final Pattern FENCE = Pattern.compile("^```\\w*$");
    private static final Pattern WRAPPER_COMMAND = Pattern.compile("^mvn -N \\S*maven-wrapper-plugin\\S* .*$");

    private final Map<String, String> files;
    private final String wrapperCommand;

    private GettingStartedPage(Map<String, String> files, String wrapperCommand) {
        this.files = files;
        this.wrapperCommand = wrapperCommand;
    }

    static GettingStartedPage read(Path page) throws IOException {
        List<String> lines = Files.readAllLines(page);
        Map<String, String> files = new LinkedHashMap<>();
        String wrapperCommand = null;
        for (int i = 0; i < lines.size(); i++) {
            Matcher name = FILE_NAME.matcher(lines.get(i));
            if (WRAPPER_COMMAND.matcher(lines.get(i)).matches()) {
                wrapperCommand = lines.get(i);
            }
            if (!name.matches() || i + 1 >= lines.size() || !FENCE.matcher(lines.get(i + 1)).matches()) {
                continue;
            }
            StringBuilder text = new StringBuilder();
            int line = i + 2;
            for (; line < lines.size() && !lines.get(line).equals("```"); line++) {
                text.append(lines.get(line)).append('\n');
            }
            if (line == lines.size()) {
                throw new IllegalArgumentException(page + ": the block of " + name.group(1) + " is not closed");
            }
            if (files.put(name.group(1), text.toString()) != null) {
                throw new IllegalArgumentException(page + ": " + name.group(1) + " is given twice");
            }
            i = line;
        }
        if (wrapperCommand == null) {
            throw new IllegalArgumentException(page + ": no `mvn -N ...maven-wrapper-plugin...` command");
        }
        return new GettingStartedPage(files, wrapperCommand);
    }

    /** {@return the files the page gives, by path relative to the project's directory, in page order} */
    Map<String, String> files() {
        return files;
    }

    /** {@return the page's command that writes mvnw and .mvn/wrapper/maven-wrapper.properties} */
    String wrapperCommand() {
        return wrapperCommand;
    }

    /** {@return the value of a {@code -Dname=value} option of the wrapper command} */
    String wrapperOption(String name) {
        Matcher option = Pattern.compile("(?:^| )-D" + Pattern.quote(name) + "=(\\S+)").matcher(wrapperCommand);
        if (!option.find()) {
            throw new IllegalArgumentException("the wrapper command has no -D" + name + ": " + wrapperCommand);
        }
        return option.group(1);
    }

    /**
     * {@code PAGE.md}: prints the page's wrapper command; {@code PAGE.md DIRECTORY}: writes the page's
     * files under DIRECTORY (the order the page gives them in: the wrapper first, in an empty directory).
     */
    public static void main(String[] args) throws IOException {
        if (args.length < 1 || args.length > 2) {
            System.err.println("usage: java GettingStartedPage.java PAGE.md [DIRECTORY]");
            System.exit(2);
        }
        GettingStartedPage page = read(Path.of(args[0]));
        if (args.length == 1) {
            System.out.println(page.wrapperCommand());
            return;
        }
        Path directory = Path.of(args[1]);
        for (Map.Entry<String, String> file : page.files().entrySet()) {
            Path path = directory.resolve(file.getKey());
            Files.createDirectories(path.getParent() == null ? directory : path.getParent());
            Files.writeString(path, file.getValue());
            System.out.println(file.getKey());
        }
    }
}
