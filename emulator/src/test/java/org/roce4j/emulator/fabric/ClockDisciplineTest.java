package org.roce4j.emulator.fabric;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * DESIGN.md §3.6: the emulator reads the time only through its injected {@link Clock}; the one
 * class that asks the system is {@link SystemClock}. A direct read anywhere else escapes virtual
 * time (a deterministic run then depends on the wall clock) and any clock a test injects.
 */
class ClockDisciplineTest {
    /** Every JDK call that reads the current time. */
    private static final Pattern TIME_READ = Pattern.compile(
            "System\\.(nanoTime|currentTimeMillis)\\(\\)|\\b(Instant|LocalDateTime|LocalTime|ZonedDateTime"
                    + "|OffsetDateTime)\\.now\\(|java\\.time\\.Clock\\.system");

    @Test
    @DisplayName("DESIGN.md §3.6: no main source file but SystemClock reads the time itself")
    void onlySystemClockReadsTheTime() throws IOException {
        Path main = Path.of("src/main/java");
        assertThat(main).as("run from the emulator module's directory").isDirectory();
        List<String> reads = new ArrayList<>();
        try (Stream<Path> files = Files.walk(main)) {
            for (Path file : files.filter(p -> p.toString().endsWith(".java")).toList()) {
                if (file.getFileName().toString().equals("SystemClock.java")) {
                    continue;
                }
                List<String> lines = Files.readAllLines(file);
                for (int i = 0; i < lines.size(); i++) {
                    String code = lines.get(i).strip();
                    if (!code.startsWith("*") && !code.startsWith("//") && TIME_READ.matcher(code).find()) {
                        reads.add(main.relativize(file) + ":" + (i + 1) + ": " + code);
                    }
                }
            }
        }
        assertThat(reads).as("time read outside the injected clock").isEmpty();
    }
}
