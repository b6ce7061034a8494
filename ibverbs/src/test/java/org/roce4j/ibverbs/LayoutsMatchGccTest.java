package org.roce4j.ibverbs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.lang.foreign.GroupLayout;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.PaddingLayout;
import java.lang.foreign.UnionLayout;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.roce4j.testing.RequiredInCi;

/**
 * Every hand-written layout of {@link Layouts} against the C compiler: a generated C program prints
 * {@code offsetof} and {@code sizeof} of every named field (nested ones by their dotted path) and of
 * every struct, compiled by gcc against the installed {@code <infiniband/verbs.h>} (Debian:
 * libibverbs-dev). In CI ({@code CI=true}) a missing gcc or header fails; elsewhere it is skipped
 * with a message saying what to install.
 */
class LayoutsMatchGccTest {
    private static final Path HEADER = Path.of("/usr/include/infiniband/verbs.h");

    @Test
    void everyFieldOffsetAndEveryStructSizeIsWhatGccComputes(@TempDir Path dir) throws Exception {
        requireToolchain();
        Map<String, Long> expected = javaSide();
        Path source = dir.resolve("layouts.c");
        Files.writeString(source, cProgram(expected.keySet()));
        Path binary = dir.resolve("layouts");
        run(List.of("gcc", "-std=gnu11", "-o", binary.toString(), source.toString()), dir);
        String output = run(List.of(binary.toString()), dir);

        Map<String, Long> actual = new LinkedHashMap<>();
        for (String line : output.split("\n")) {
            if (!line.isBlank()) {
                String[] parts = line.trim().split(" ");
                actual.put(parts[0], Long.parseLong(parts[1]));
            }
        }
        assertThat(actual).as("offsetof/sizeof from gcc vs Layouts").containsExactlyEntriesOf(expected);
        assertThat(expected).as("checked entries").hasSizeGreaterThan(300);
    }

    /** "KIND NAME" -> value: "struct ibv_wc" -> sizeof, "struct ibv_wc.wr_id" -> offsetof, "...#size" -> member size. */
    private static Map<String, Long> javaSide() {
        Map<String, Long> values = new LinkedHashMap<>();
        for (MemoryLayout layout : Layouts.CHECKED) {
            String type = cType(layout);
            values.put(type.replace(' ', '_'), layout.byteSize());
            walk(layout, layout, "", values, type.replace(' ', '_'));
        }
        values.put("struct_pollfd", Layouts.POLLFD.byteSize());
        walk(Layouts.POLLFD, Layouts.POLLFD, "", values, "struct_pollfd");
        return values;
    }

    private static void walk(MemoryLayout root, MemoryLayout group, String prefix, Map<String, Long> values, String key) {
        if (!(group instanceof GroupLayout g)) {
            return;
        }
        for (MemoryLayout member : g.memberLayouts()) {
            if (member instanceof PaddingLayout || member.name().isEmpty()) {
                continue;
            }
            String path = prefix + member.name().get();
            values.put(key + "." + path, Layouts.offset(root, path));
            values.put(key + "." + path + "#size", member.byteSize());
            walk(root, member, path + ".", values, key);
        }
    }

    private static String cType(MemoryLayout layout) {
        return (layout instanceof UnionLayout ? "union " : "struct ") + layout.name().orElseThrow();
    }

    private static String cProgram(Iterable<String> keys) {
        StringBuilder c = new StringBuilder("""
                #include <stddef.h>
                #include <stdio.h>
                #include <poll.h>
                #include <infiniband/verbs.h>
                int main(void) {
                """);
        for (String key : keys) {
            int dot = key.indexOf('.');
            String cType = restoreType(dot < 0 ? key : key.substring(0, dot));
            String expr;
            if (dot < 0) {
                expr = "sizeof(" + cType + ")";
            } else if (key.endsWith("#size")) {
                expr = "sizeof(((" + cType + " *)0)->" + key.substring(dot + 1, key.length() - 5) + ")";
            } else {
                expr = "offsetof(" + cType + ", " + key.substring(dot + 1) + ")";
            }
            c.append("    printf(\"%s %zu\\n\", \"").append(key).append("\", (size_t)").append(expr).append(");\n");
        }
        return c.append("    return 0;\n}\n").toString();
    }

    /** "struct_ibv_wc" -> "struct ibv_wc" (only the first underscore separates the kind). */
    private static String restoreType(String key) {
        int underscore = key.indexOf('_');
        return key.substring(0, underscore) + " " + key.substring(underscore + 1);
    }

    private static void requireToolchain() {
        List<String> missing = new ArrayList<>();
        if (!onPath("gcc")) {
            missing.add("gcc");
        }
        if (!Files.exists(HEADER)) {
            missing.add(HEADER + " (libibverbs-dev)");
        }
        if (missing.isEmpty()) {
            return;
        }
        RequiredInCi.require(false, "layout check needs " + missing + ": apt-get install gcc libibverbs-dev");
    }

    private static boolean onPath(String program) {
        String path = System.getenv().getOrDefault("PATH", "");
        for (String dir : path.split(":")) {
            if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, program))) {
                return true;
            }
        }
        return false;
    }

    private static String run(List<String> command, Path dir) throws IOException, InterruptedException {
        Process process = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!process.waitFor(60, TimeUnit.SECONDS) || process.exitValue() != 0) {
            fail(String.join(" ", command) + " failed:\n" + output);
        }
        return output;
    }
}
