package org.roce4j.tools;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;
import org.roce4j.tools.LiveInterface.LiveCaptureException;
import org.roce4j.tools.analyze.AnalysisReport;
import org.roce4j.tools.analyze.CaptureAnalysis;
import org.roce4j.wire.pcap.CaptureWriter;
import org.roce4j.wire.pcap.PcapRecord;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code roce4j capture -i IFACE [-w FILE] [--analyze] [-c COUNT] [--duration S]}: live RoCEv2 frames, checked as they come. */
@Command(name = "capture",
        description = {
            "Captures RoCEv2 frames live on a network interface (libpcap, through pcap4j; needs root or CAP_NET_RAW"
                    + " and libpcap, Debian's libpcap0.8), decodes each one and verifies its ICRC as it arrives and prints"
                    + " it as roce4j decode does. Every --summary-every seconds and at the end: one line per destination QP"
                    + " (frames, bytes, bad ICRCs, NAKs, RNR NAKs). Stops after -c frames, after --duration seconds, or on"
                    + " Ctrl-C (SIGINT) or SIGTERM, and still prints the summary and closes the file then.",
            "See docs/capture-and-replay.md.",
            ""},
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {
            "0:every RoCE frame was well formed with a good ICRC (and, with --analyze, broke no protocol rule)",
            "1:some RoCE frame was malformed or had a bad ICRC, or --analyze found a violation",
            "2:usage error, or the interface cannot be opened (no such device, no permission, no libpcap, bad filter)",
            "3:internal error"})
final class CaptureCommand implements Callable<Integer> {
    /** RoCEv2's UDP destination port (IBTA A17.2.1: 4791), as a BPF filter. */
    static final String ROCE_FILTER = "udp port 4791";

    @Option(names = {"-i", "--interface"}, required = true, paramLabel = "IFACE", description = "the interface to capture on (e.g. eth0, br0)")
    private String iface;

    @Option(names = {"-w", "--write"}, paramLabel = "FILE", description = "also write every captured frame to FILE: pcapng when its name ends in .pcapng, classic pcap otherwise")
    private Path file;

    @Option(names = "--analyze", description = "at the end, run roce4j analyze's transport analysis and protocol check on the captured frames")
    private boolean analyze;

    @Option(names = {"-c", "--count"}, paramLabel = "COUNT", description = "stop after COUNT frames")
    private long count;

    @Option(names = "--duration", paramLabel = "S", description = "stop after S seconds (decimals allowed)")
    private double durationSeconds;

    @Option(names = {"-f", "--filter"}, paramLabel = "BPF", description = "the capture filter, in tcpdump's syntax (default: ${DEFAULT-VALUE})")
    private String filter = ROCE_FILTER;

    @Option(names = "--summary-every", paramLabel = "S", description = "print the per-QP summary every S seconds (default: ${DEFAULT-VALUE}; 0: only at the end)")
    private double summaryEverySeconds = 5;

    @Option(names = {"-v", "--verbose"}, description = "also print every header field and the first 64 payload bytes of each frame")
    private boolean verbose;

    @Option(names = {"-h", "--help"}, usageHelp = true, description = "show this help and exit")
    private boolean help;

    @Spec
    private CommandSpec spec;

    /** Where frames come from: the live interface, or a test's list. */
    interface FrameSource {
        /** {@return the next frame, or empty when none came within a short wait} */
        Optional<PcapRecord> next() throws LiveCaptureException;
    }

    /** When to stop: after {@code count} frames (0: no limit), at {@code deadlineNanos} (0: none), or when {@code stop} is set. */
    record Limits(long count, long deadlineNanos, long summaryEveryNanos, AtomicBoolean stop) {}

    @Override
    public Integer call() {
        if (count < 0 || durationSeconds < 0 || summaryEverySeconds < 0) {
            throw new ParameterException(spec.commandLine(), "-c, --duration and --summary-every cannot be negative");
        }
        PrintWriter out = spec.commandLine().getOut();
        AtomicBoolean stop = new AtomicBoolean();
        AtomicInteger exitCode = new AtomicInteger(Roce4j.INTERNAL_ERROR);
        CountDownLatch finished = new CountDownLatch(1);
        // SIGINT (Ctrl-C) or SIGTERM: stop reading, let the loop close the file and print the summary, then end
        // with the exit code the frames earned, as tcpdump does, rather than the JVM's 128 + signal.
        Thread onSignal = new Thread(() -> {
            stop.set(true);
            try {
                if (finished.await(5, TimeUnit.SECONDS)) {
                    Runtime.getRuntime().halt(exitCode.get());
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "roce4j-capture-stop");
        Runtime.getRuntime().addShutdownHook(onSignal);
        try (LiveInterface live = LiveInterface.open(iface, filter)) {
            out.println("capturing on " + iface + (filter.isEmpty() ? "" : " (filter '" + filter + "')")
                    + (file == null ? "" : ", writing " + file));
            out.flush();
            long now = System.nanoTime();
            Limits limits = new Limits(count, durationSeconds == 0 ? 0 : now + seconds(durationSeconds),
                    seconds(summaryEverySeconds), stop);
            int exit = capture(live::next, limits, System::nanoTime, out);
            out.println("dropped by the kernel: " + live.droppedByKernel());
            exitCode.set(exit);
        } catch (LiveCaptureException e) {
            exitCode.set(Roce4j.fail(spec, e.getMessage()));
        } catch (IOException e) {
            exitCode.set(Roce4j.fail(spec, file + ": " + e.getMessage()));
        } finally {
            out.flush();
            finished.countDown();
            try {
                Runtime.getRuntime().removeShutdownHook(onSignal);
            } catch (IllegalStateException shuttingDown) {
                // the hook is what stopped us: it ends the JVM with exitCode
            }
        }
        return exitCode.get();
    }

    /** Captures from {@code source} until a limit is reached; prints the summaries; returns the exit code. */
    int capture(FrameSource source, Limits limits, LongSupplier clock, PrintWriter out) throws LiveCaptureException, IOException {
        Optional<CaptureAnalysis> analysis = analyze ? Optional.of(new CaptureAnalysis()) : Optional.empty();
        CaptureSession session;
        try (CaptureWriter writer = file == null ? null : CaptureWriter.create(file)) {
            session = new CaptureSession(out, verbose, Optional.ofNullable(writer), analysis);
            long nextSummary = limits.summaryEveryNanos() == 0 ? Long.MAX_VALUE : clock.getAsLong() + limits.summaryEveryNanos();
            while (!limits.stop().get() && (limits.count() == 0 || session.frames() < limits.count())
                    && (limits.deadlineNanos() == 0 || clock.getAsLong() - limits.deadlineNanos() < 0)) {
                Optional<PcapRecord> frame = source.next();
                if (frame.isPresent()) {
                    session.accept(frame.get());
                }
                if (clock.getAsLong() - nextSummary >= 0) {
                    session.printSummary("after " + session.frames() + " frames, per destination QP:");
                    nextSummary += limits.summaryEveryNanos();
                }
                out.flush();
                if (writer != null && frame.isEmpty()) {
                    writer.flush(); // a quiet moment: what was captured is on disk for whoever reads the file
                }
            }
        }
        session.printSummary("summary after " + session.frames() + " frames, per destination QP:");
        DecodeCommand.printCounts(out, session.counters());
        boolean clean = true;
        if (analysis.isPresent()) {
            AnalysisReport report = analysis.get().report();
            report.writeText(out);
            clean = report.clean();
        }
        return session.allGood() && clean ? 0 : 1;
    }

    private static long seconds(double seconds) {
        return (long) (seconds * 1e9);
    }
}
