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

import org.roce4j.testing.RequiredInCi;

/**
 * Hand-written layouts against the C compiler: a generated C program prints {@code offsetof} and
 * {@code sizeof} of every named field (nested ones by their dotted path) and of every struct, compiled
 * by gcc against the installed headers, and the numbers must be the layouts'. In CI ({@code CI=true})
 * a missing gcc or header fails; elsewhere the check is skipped with a message saying what to install.
 *
 * @param headers  the headers to include, e.g. {@code infiniband/verbs.h}
 * @param packages the Debian packages that install them (for the message)
 */
record GccLayoutCheck(List<String> headers, String packages) {

    /** Compiles and runs the program in {@code dir}; asserts that gcc's numbers are the layouts'; returns how many were compared. */
    int assertMatches(List<MemoryLayout> layouts, Path dir) throws Exception {
        requireToolchain();
        Map<String, Long> expected = new LinkedHashMap<>();
        for (MemoryLayout layout : layouts) {
            String key = cType(layout).replace(' ', '_');
            expected.put(key, layout.byteSize());
            walk(layout, layout, "", expected, key);
        }
        StringBuilder c = new StringBuilder("#include <stddef.h>\n#include <stdio.h>\n");
        headers.forEach(h -> c.append("#include <").append(h).append(">\n"));
        c.append("int main(void) {\n");
        for (String key : expected.keySet()) {
            c.append("    printf(\"%s %zu\\n\", \"").append(key).append("\", (size_t)").append(cExpression(key))
                    .append(");\n");
        }
        Map<String, Long> actual = new LinkedHashMap<>();
        for (String line : compileAndRun(c.append("    return 0;\n}\n").toString(), "", dir).split("\n")) {
            if (!line.isBlank()) {
                String[] parts = line.trim().split(" ");
                actual.put(parts[0], Long.parseLong(parts[1]));
            }
        }
        assertThat(actual).as("offsetof/sizeof from gcc vs the layouts").containsExactlyEntriesOf(expected);
        return expected.size();
    }

    /** Compiles a C program (with {@code libraries}, e.g. "-lrdmacm") in {@code dir}, runs it, returns its output. */
    String compileAndRun(String program, String libraries, Path dir) throws IOException, InterruptedException {
        requireToolchain();
        Path source = dir.resolve("check.c");
        Files.writeString(source, program);
        Path binary = dir.resolve("check");
        List<String> gcc = new ArrayList<>(List.of("gcc", "-std=gnu11", "-o", binary.toString(), source.toString()));
        if (!libraries.isEmpty()) {
            gcc.add(libraries);
        }
        run(gcc, dir);
        return run(List.of(binary.toString()), dir);
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

    /** "struct_ibv_wc" → sizeof, "struct_ibv_wc.wr_id" → offsetof, "struct_ibv_wc.wr_id#size" → the member's sizeof. */
    private static String cExpression(String key) {
        int dot = key.indexOf('.');
        String typeKey = dot < 0 ? key : key.substring(0, dot);
        int underscore = typeKey.indexOf('_');   // only the first underscore separates the kind
        String cType = typeKey.substring(0, underscore) + " " + typeKey.substring(underscore + 1);
        if (dot < 0) {
            return "sizeof(" + cType + ")";
        }
        if (key.endsWith("#size")) {
            return "sizeof(((" + cType + " *)0)->" + key.substring(dot + 1, key.length() - 5) + ")";
        }
        return "offsetof(" + cType + ", " + key.substring(dot + 1) + ")";
    }

    private void requireToolchain() {
        List<String> missing = new ArrayList<>();
        if (!onPath("gcc")) {
            missing.add("gcc");
        }
        for (String header : headers) {
            if (!Files.exists(Path.of("/usr/include", header))) {
                missing.add("/usr/include/" + header);
            }
        }
        if (!missing.isEmpty()) {
            RequiredInCi.require(false, "layout check needs " + missing + ": apt-get install gcc " + packages);
        }
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
