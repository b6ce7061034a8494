package org.roce4j.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.roce4j.tools.analyze.AnalysisReport;
import org.roce4j.tools.analyze.CaptureAnalysis;
import org.roce4j.wire.pcap.CaptureReader;

/**
 * {@code roce4j analyze} over a capture of {@link #frames} frames ({@link AnalyzeCapture}, made in
 * the setup): one whole analysis per operation (single shot), file reading and decoding included.
 * Frames per second = {@code frames} / the score in seconds.
 *
 * <p>The fork runs with {@code -Xmx64m}: the 1-million-frame capture is about 150 MB, so an
 * analysis whose memory grew with the file could not finish; {@link AnalyzeMemoryCheck} prints the
 * retained heap after 100 k and 1 M frames.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Fork(value = 1, jvmArgsAppend = "-Xmx64m")
@Warmup(iterations = 4)
@Measurement(iterations = 5)
public class AnalyzeBenchmark {
    @Param({"1000000"})
    public long frames;

    private Path capture;

    @Setup(Level.Trial)
    public void writeCapture() throws IOException {
        capture = AnalyzeCapture.write(Files.createTempFile("roce4j-analyze-", ".pcap"), frames);
    }

    @TearDown(Level.Trial)
    public void deleteCapture() throws IOException {
        Files.deleteIfExists(capture);
    }

    @Benchmark
    public AnalysisReport analyze() throws IOException {
        try (CaptureReader reader = CaptureReader.open(capture)) {
            AnalysisReport report = CaptureAnalysis.analyze(reader);
            if (report.frames() != frames || !report.clean()) {
                throw new IllegalStateException("the generated capture must analyse clean, all " + frames + " frames: " + report.frames() + " " + report.violations());
            }
            return report;
        }
    }
}
