package org.roce4j.bench;

import java.util.Arrays;

/**
 * Why the threaded fabric's round trip has two levels (issue 17): alternates, window by window, a
 * probe of what moving one cache line between two threads costs on this machine right now (a
 * volatile ping-pong between two spinning threads) with {@link EmulatorBenchmark#pingPong64},
 * {@link EmulatorBenchmark#send64} and {@link EmulatorBenchmark#sendStream64} on the threaded fabric,
 * and prints all four per window and the fabric's medians grouped by the probe's level.
 * Not a JMH benchmark: JMH cannot interleave two measurements by the window, and the level changes
 * every few seconds. {@code bench/run-threaded-levels [WINDOWS [SPLIT_NS]]}.
 */
public final class ThreadedLevels {
    private static final long WINDOW_NANOS = 300_000_000L;

    private static volatile long ping;
    private static volatile long pong;
    private static volatile boolean stopEcho;

    private ThreadedLevels() {
    }

    /** One window of the probe: the mean round trip of a value written by one thread and echoed by another. */
    static double probeRoundTripNanos() throws InterruptedException {
        long first = ping;
        stopEcho = false;
        Thread echo = new Thread(() -> {
            long seen = first;
            while (!stopEcho) {
                long value = ping;
                if (value != seen) {
                    seen = value;
                    pong = value;
                } else {
                    Thread.onSpinWait();
                }
            }
        }, "probe-echo");
        echo.start();
        long sent = first;
        long start = System.nanoTime();
        long end = start + WINDOW_NANOS;
        while (System.nanoTime() < end) {
            for (int i = 0; i < 100; i++) {
                ping = ++sent;
                while (pong != sent) {
                    Thread.onSpinWait();
                }
            }
        }
        double nanos = (System.nanoTime() - start) / (double) (sent - first);
        stopEcho = true;
        echo.join();
        return nanos;
    }

    public static void main(String[] args) throws Exception {
        int windows = args.length > 0 ? Integer.parseInt(args[0]) : 100;
        double splitNanos = args.length > 1 ? Double.parseDouble(args[1]) : 200;
        EmulatorBenchmark.PingPong state = new EmulatorBenchmark.PingPong();
        state.fabric = "threaded";
        state.setUp();
        EmulatorBenchmark.Send sendState = new EmulatorBenchmark.Send();
        sendState.fabric = "threaded";
        sendState.setUp();
        EmulatorBenchmark.SendStream streamState = new EmulatorBenchmark.SendStream();
        streamState.fabric = "threaded";
        streamState.setUp();
        EmulatorBenchmark benchmark = new EmulatorBenchmark();
        for (int i = 0; i < 200_000; i++) {
            benchmark.pingPong64(state); // warm-up: compiled before the first window
            benchmark.send64(sendState);
            benchmark.sendStream64(streamState);
        }
        long[] roundTrips = new long[2_000_000];
        double[][] medians = new double[2][windows]; // [near, far][window]
        double[][] rates = new double[2][windows];
        double[][] streamRates = new double[2][windows];
        int[] counts = new int[2];
        System.out.println("window  probe round trip (ns)  fabric pingPong64 median (us)  round trips  send64 (M msg/s)  sendStream64 (M msg/s)");
        for (int w = 0; w < windows; w++) {
            double probe = probeRoundTripNanos();
            int n = 0;
            long end = System.nanoTime() + WINDOW_NANOS;
            while (System.nanoTime() < end && n < roundTrips.length) {
                long t = System.nanoTime();
                benchmark.pingPong64(state);
                roundTrips[n++] = System.nanoTime() - t;
            }
            Arrays.sort(roundTrips, 0, n);
            double median = roundTrips[n / 2] / 1000.0;
            double rate = sendRate(() -> benchmark.send64(sendState));
            double streamRate = sendRate(() -> benchmark.sendStream64(streamState));
            System.out.printf("%6d  %21.0f  %29.2f  %11d  %16.2f  %22.2f%n", w, probe, median, n, rate, streamRate);
            int level = probe < splitNanos ? 0 : 1;
            medians[level][counts[level]] = median;
            rates[level][counts[level]] = rate;
            streamRates[level][counts[level]++] = streamRate;
        }
        state.tearDown();
        sendState.tearDown();
        streamState.tearDown();
        String[] names = {String.format("probe < %.0f ns", splitNanos), String.format("probe >= %.0f ns", splitNanos)};
        for (int level = 0; level < 2; level++) {
            System.out.printf("%s: %d windows, fabric median of medians %s, send64 median %s, sendStream64 median %s%n",
                    names[level], counts[level], medianOf(medians[level], counts[level], "us"),
                    medianOf(rates[level], counts[level], "M msg/s"),
                    medianOf(streamRates[level], counts[level], "M msg/s"));
        }
        System.exit(0); // the fabric's loop thread is a daemon, but do not wait for it
    }

    /** One window of a benchmark method that completes {@link EmulatorBenchmark#BATCH} messages: millions per second. */
    private static double sendRate(Runnable batch) {
        return rate(batch, EmulatorBenchmark.BATCH, WINDOW_NANOS);
    }

    /** One window of {@code windowNanos} running {@code batch}, which completes {@code perBatch} messages: millions per second. */
    static double rate(Runnable batch, int perBatch, long windowNanos) {
        long start = System.nanoTime();
        long end = start + windowNanos;
        long messages = 0;
        while (System.nanoTime() < end) {
            batch.run();
            messages += perBatch;
        }
        return messages * 1e3 / (System.nanoTime() - start);
    }

    static String medianOf(double[] values, int count, String unit) {
        if (count == 0) {
            return "-";
        }
        double[] sorted = Arrays.copyOf(values, count);
        Arrays.sort(sorted);
        return String.format("%.2f %s (quartiles %.2f-%.2f)", sorted[count / 2], unit, sorted[count / 4],
                sorted[(3 * count) / 4]);
    }
}
