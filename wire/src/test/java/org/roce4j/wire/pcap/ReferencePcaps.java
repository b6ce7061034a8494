package org.roce4j.wire.pcap;

import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;

/**
 * Finds {@code shared/reference-pcaps}, the real Soft-RoCE captures that sit next to the
 * repository: first at {@code ${roce4j.repo.root}/../shared/reference-pcaps} (surefire sets the
 * property to the repository root), then in {@code shared/reference-pcaps} beside the working
 * directory or any directory above it. Not finding them fails the test: they are part of the
 * project's test data, and a skipped test would hide their absence.
 */
final class ReferencePcaps {

    private static final String FOLDER = "shared/reference-pcaps";

    private ReferencePcaps() {}

    static Path directory() {
        Set<Path> tried = new LinkedHashSet<>();
        String root = System.getProperty("roce4j.repo.root", "");
        if (!root.isBlank()) {
            Path candidate = Path.of(root).toAbsolutePath().resolve("..").resolve(FOLDER)
                    .normalize();
            if (Files.isDirectory(candidate)) {
                return candidate;
            }
            tried.add(candidate);
        }
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            Path candidate = dir.resolve(FOLDER);
            if (Files.isDirectory(candidate)) {
                return candidate;
            }
            tried.add(candidate);
        }
        return fail("reference captures not found; looked in " + tried
                + " (roce4j.repo.root=" + (root.isBlank() ? "unset" : root) + ")");
    }

    /** Every {@code *.pcap} in the folder, sorted by name. */
    static List<Path> files() throws IOException {
        try (Stream<Path> entries = Files.list(directory())) {
            return entries.filter(p -> p.getFileName().toString().endsWith(".pcap"))
                    .sorted()
                    .toList();
        }
    }
}
