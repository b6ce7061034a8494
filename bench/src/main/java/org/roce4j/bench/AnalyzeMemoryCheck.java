package org.roce4j.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import org.roce4j.tools.analyze.CaptureAnalysis;
import org.roce4j.wire.pcap.CaptureReader;
import org.roce4j.wire.pcap.CapturedPacket;

/**
 * Does {@code roce4j analyze}'s memory grow with the capture's length? Analyses captures of
 * 100 000 and 1 000 000 frames ({@link AnalyzeCapture}) and prints the heap still in use after a
 * full GC with the analysis alive, minus the heap before it started. Run it with
 * {@code java -cp bench/target/benchmarks.jar org.roce4j.bench.AnalyzeMemoryCheck}; it exits 1
 * when the 1 M analysis retains more than twice the 100 k one plus 64 KiB.
 */
public final class AnalyzeMemoryCheck {
    private AnalyzeMemoryCheck() {}

    public static void main(String... args) throws IOException {
        retainedBytes(10_000); // loads and initialises every class first, so their statics are not counted below
        long small = retainedBytes(100_000);
        long large = retainedBytes(1_000_000);
        System.out.printf("retained by the analysis after 100000 frames: %d bytes; after 1000000 frames: %d bytes%n", small, large);
        if (large > 2 * small + 64 * 1024) {
            System.out.println("FAIL: the analysis grows with the capture");
            System.exit(1);
        }
    }

    private static long retainedBytes(long frames) throws IOException {
        Path file = AnalyzeCapture.write(Files.createTempFile("roce4j-analyze-", ".pcap"), frames);
        try (CaptureReader reader = CaptureReader.open(file)) {
            long before = usedAfterGc();
            CaptureAnalysis analysis = new CaptureAnalysis();
            for (Optional<CapturedPacket> next = reader.read(); next.isPresent(); next = reader.read()) {
                analysis.accept(next.get());
            }
            long after = usedAfterGc();
            if (!analysis.report().clean()) {
                throw new IllegalStateException("the generated capture must analyse clean");
            }
            return after - before;
        } finally {
            Files.deleteIfExists(file);
        }
    }

    private static long usedAfterGc() {
        Runtime runtime = Runtime.getRuntime();
        for (int i = 0; i < 3; i++) {
            System.gc();
        }
        return runtime.totalMemory() - runtime.freeMemory();
    }
}
