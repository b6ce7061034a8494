package org.roce4j.tools;

import static java.nio.charset.StandardCharsets.UTF_8;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.roce4j.wire.pcap.PcapReader;
import org.roce4j.wire.pcap.PcapRecord;
import org.roce4j.wire.pcap.PcapWriter;

/** Where the committed captures are, and how tests read, write and decode captures. */
final class TestCaptures {
    private TestCaptures() {}

    /** The repository root: surefire's {@code roce4j.repo.root}, else found by walking up from user.dir. */
    static Path repoRoot() {
        String property = System.getProperty("roce4j.repo.root");
        if (property != null && !property.isBlank() && Files.isDirectory(Path.of(property, "pcaps"))) {
            return Path.of(property);
        }
        for (Path dir = Path.of(System.getProperty("user.dir")).toAbsolutePath(); dir != null; dir = dir.getParent()) {
            if (Files.isRegularFile(dir.resolve(".mvn/find-jdk25")) && Files.isDirectory(dir.resolve("pcaps"))) {
                return dir;
            }
        }
        throw new IllegalStateException("cannot find the repository root from " + System.getProperty("user.dir"));
    }

    static Path committed(String name) {
        return repoRoot().resolve("pcaps").resolve(name);
    }

    static List<PcapRecord> read(Path file) throws IOException {
        List<PcapRecord> records = new ArrayList<>();
        try (PcapReader reader = PcapReader.open(file)) {
            for (Optional<PcapRecord> next = reader.read(); next.isPresent(); next = reader.read()) {
                records.add(next.get());
            }
        }
        return records;
    }

    /** Writes {@code frames} 1 µs apart. */
    static Path write(Path file, List<byte[]> frames) throws IOException {
        try (PcapWriter writer = PcapWriter.create(file)) {
            for (int i = 0; i < frames.size(); i++) {
                writer.write(AllOpcodesCapture.timestampNanos(i), frames.get(i));
            }
        }
        return file;
    }

    /** What one in-process run of the command line printed, and its exit code. */
    record Run(int exitCode, String out, String err) {
        List<String> lines() {
            return out.lines().toList();
        }
    }

    static Run run(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int exitCode = Roce4j.run(new PrintWriter(new OutputStreamWriter(out, UTF_8)),
                new PrintWriter(new OutputStreamWriter(err, UTF_8)), args);
        return new Run(exitCode, out.toString(UTF_8), err.toString(UTF_8));
    }
}
