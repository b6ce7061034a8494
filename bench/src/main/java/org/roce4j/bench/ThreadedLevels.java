package org.roce4j.bench;

import java.util.Arrays;

/**
 * Why the threaded fabric's round trip has two levels (issue 17): alternates, window by window, a
 * probe of what moving one cache line between two threads costs on this machine right now (a
 * volatile ping-pong between two spinning threads) with {@link EmulatorBenchmark#pingPong64} on the
 * threaded fabric, and prints both per window and the fabric's medians grouped by the probe's level.
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
        EmulatorBenchmark benchmark = new EmulatorBenchmark();
        for (int i = 0; i < 200_000; i++) {
            benchmark.pingPong64(state); // warm-up: compiled before the first window
        }
        long[] roundTrips = new long[2_000_000];
        double[] near = new double[windows];
        double[] far = new double[windows];
        int nearCount = 0;
        int farCount = 0;
        System.out.println("window  probe round trip (ns)  fabric pingPong64 median (us)  round trips");
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
            System.out.printf("%6d  %21.0f  %29.2f  %11d%n", w, probe, median, n);
            if (probe < splitNanos) {
                near[nearCount++] = median;
            } else {
                far[farCount++] = median;
            }
        }
        state.tearDown();
        System.out.printf("probe < %.0f ns: %d windows, fabric median of medians %s%n", splitNanos, nearCount,
                medianOf(near, nearCount));
        System.out.printf("probe >= %.0f ns: %d windows, fabric median of medians %s%n", splitNanos, farCount,
                medianOf(far, farCount));
        System.exit(0); // the fabric's loop thread is a daemon, but do not wait for it
    }

    private static String medianOf(double[] values, int count) {
        if (count == 0) {
            return "-";
        }
        double[] sorted = Arrays.copyOf(values, count);
        Arrays.sort(sorted);
        return String.format("%.2f us (quartiles %.2f-%.2f)", sorted[count / 2], sorted[count / 4],
                sorted[(3 * count) / 4]);
    }
}
