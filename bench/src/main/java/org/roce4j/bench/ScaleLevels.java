package org.roce4j.bench;

import java.io.PrintStream;
import java.util.Arrays;

/**
 * Issue 17's scale ratio, window by window in one JVM: {@link ScaleBenchmark#writeRate} with one pair and with
 * 10,000 pairs on one fabric, one after the other in each window, beside
 * {@link ThreadedLevels}'s probe of what moving a cache line between two threads costs at that moment. A ratio is
 * taken inside one window, so the host's drift between runs and forks (the 10,000-pair rate moves ±20% from fork
 * to fork, one pair ±15% from hour to hour on this machine) falls out of it, and the threaded fabric's ratio is
 * taken within one placement of its two threads. Not a JMH benchmark: JMH cannot interleave two measurements by
 * the window. {@code bench/run-scale-levels [WINDOWS [ORDER [FABRIC [SPLIT_NS]]]]}, ORDER {@code random} (the
 * default) or {@code creation}, FABRIC {@code deterministic} (the default) or {@code threaded}.
 */
public final class ScaleLevels {
    private static final long WINDOW_NANOS = 300_000_000L;

    private ScaleLevels() {
    }

    /**
     * What one run measures: {@code windows} windows of {@code windowNanos} each on one {@code fabric}
     * ({@code deterministic} or {@code threaded}: one per JVM, so that the compiled code is that fabric's alone, as
     * in a JMH fork), the pairs visited in {@code order} ({@code random} or {@code creation}), {@code many} pairs
     * against one, a probe under {@code splitNanos} counted as the near placement, and {@code warmUps} calls of
     * {@link ScaleBenchmark#writeRate} on each state first.
     */
    record Plan(int windows, String order, String fabric, double splitNanos, int many, long windowNanos,
                int warmUps) {
    }

    public static void main(String[] args) throws Exception {
        Plan plan = new Plan(args.length > 0 ? Integer.parseInt(args[0]) : 20, args.length > 1 ? args[1] : "random",
                args.length > 2 ? args[2] : "deterministic", args.length > 3 ? Double.parseDouble(args[3]) : 200,
                10_000, WINDOW_NANOS, 20_000);
        run(plan, System.out);
        System.exit(0); // a threaded fabric's loop threads are daemons, but do not wait for them
    }

    /**
     * Measures and prints {@code plan}: a row per window, then the medians — over all windows, and by the probe's
     * level.
     *
     * @return the rates, M WRITEs/s: {@code [0][window]} one pair, {@code [1][window]} {@code many} pairs
     */
    static double[][] run(Plan plan, PrintStream out) throws Exception {
        int windows = plan.windows();
        ScaleBenchmark.Pairs one = pairs(1, plan);
        ScaleBenchmark.Pairs many = pairs(plan.many(), plan);
        ScaleBenchmark benchmark = new ScaleBenchmark();
        double[][] rates = new double[2][windows];
        int[] levels = new int[windows];
        try {
            for (int i = 0; i < plan.warmUps(); i++) {
                benchmark.writeRate(one); // compiled, and every pair used, before the first window
                benchmark.writeRate(many);
            }
            out.printf("%s fabric, order %s; 64-byte WRITEs, 16 in flight; M WRITEs/s per %d ms window%n",
                    plan.fabric(), plan.order(), plan.windowNanos() / 1_000_000);
            out.printf("window  probe (ns)  1 pair  %d pairs  ratio%n", plan.many());
            for (int w = 0; w < windows; w++) {
                double probe = ThreadedLevels.probeRoundTripNanos();
                levels[w] = probe < plan.splitNanos() ? 0 : 1;
                rates[0][w] = ThreadedLevels.rate(() -> benchmark.writeRate(one), ScaleBenchmark.IN_FLIGHT,
                        plan.windowNanos());
                rates[1][w] = ThreadedLevels.rate(() -> benchmark.writeRate(many), ScaleBenchmark.IN_FLIGHT,
                        plan.windowNanos());
                out.printf("%6d  %10.0f  %6.2f  %8.2f  %5.2f%n", w, probe, rates[0][w], rates[1][w],
                        rates[0][w] / rates[1][w]);
            }
        } finally {
            one.tearDown();
            many.tearDown();
        }
        boolean[] all = new boolean[windows];
        Arrays.fill(all, true);
        summarize(out, "all windows", rates, all, plan.many());
        for (int level = 0; level < 2; level++) {
            boolean[] in = new boolean[windows];
            for (int w = 0; w < windows; w++) {
                in[w] = levels[w] == level;
            }
            summarize(out, String.format(level == 0 ? "probe < %.0f ns" : "probe >= %.0f ns", plan.splitNanos()),
                    rates, in, plan.many());
        }
        return rates;
    }

    private static void summarize(PrintStream out, String which, double[][] rates, boolean[] in, int many) {
        double[] ratios = new double[rates[0].length];
        for (int w = 0; w < ratios.length; w++) {
            ratios[w] = rates[0][w] / rates[1][w];
        }
        out.printf("%s: 1 pair %s, %d pairs %s, ratio %s%n", which, median(rates[0], in, "M/s"), many,
                median(rates[1], in, "M/s"), median(ratios, in, "x"));
    }

    private static ScaleBenchmark.Pairs pairs(int pairs, Plan plan) throws Exception {
        ScaleBenchmark.Pairs state = new ScaleBenchmark.Pairs();
        state.pairs = pairs;
        state.fabric = plan.fabric();
        state.order = plan.order();
        state.setUp();
        return state;
    }

    /** The median and quartiles of the windows {@code in} says, and how many there were. */
    private static String median(double[] values, boolean[] in, String unit) {
        double[] chosen = new double[values.length];
        int count = 0;
        for (int i = 0; i < values.length; i++) {
            if (in[i]) {
                chosen[count++] = values[i];
            }
        }
        return ThreadedLevels.medianOf(chosen, count, unit) + " in " + count + " windows";
    }
}
