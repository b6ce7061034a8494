package org.roce4j.tools;

import java.util.Arrays;
import java.util.Locale;

/**
 * perftest 6.06's result tables ({@code print_report_lat}, {@code print_report_bw} and their
 * headers in {@code perftest_parameters.h}): the header lines, one row per message size, and the
 * numbers behind the rows. Times are {@link System#nanoTime()} stamps.
 */
final class PerftestReport {
    static final String RESULT_LINE = "-".repeat(87);
    static final String LAT_HEADER = " #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    t_avg[usec]"
            + "    t_stdev[usec]   99% percentile[usec]   99.9% percentile[usec] ";
    static final String BW_HEADER = " #bytes     #iterations    BW peak[MB/sec]    BW average[MB/sec]   MsgRate[Mpps]";
    private static final double MEGA_BYTE = 0x100000;

    private PerftestReport() {}

    /**
     * print_report_lat: the intervals between consecutive posts, divided by the round trips each
     * covers ({@code rtt_factor}: 2 for WRITE and SEND ping-pongs, where one interval is a message
     * each way; 1 for READ and atomics), sorted; min, max, median ("typical"), mean, standard
     * deviation and the 99% / 99.9% percentiles.
     */
    static String latencyRow(long size, long[] posted, int rttFactor) {
        int n = posted.length - 1;
        double[] delta = new double[n];
        for (int i = 0; i < n; i++) {
            delta[i] = (posted[i + 1] - posted[i]) / 1000.0 / rttFactor;
        }
        Arrays.sort(delta);
        double sum = 0;
        for (double d : delta) {
            sum += d;
        }
        double average = sum / n;
        double squares = 0;
        for (double d : delta) {
            squares += (d - average) * (d - average);
        }
        double stdev = Math.sqrt(squares / n);
        return String.format(Locale.ROOT, " %-7d %d          %-7.2f        %-7.2f      %-7.2f  \t       %-7.2f     \t%-7.2f"
                        + "\t\t%-7.2f \t\t%-7.2f", size, posted.length, delta[0], delta[n - 1], delta[n / 2], average, stdev,
                delta[percentile(n, 0.99)], delta[percentile(n, 0.999)]);
    }

    private static int percentile(int n, double p) {
        return Math.min(n - 1, Math.max(0, (int) Math.ceil(n * p) - 1));
    }

    /**
     * The numbers of print_report_bw for the side that posted: average over the whole run (first
     * post to last completion), peak from the best (completed[j] - posted[i]) / (j - i + 1), MB =
     * 2^20 bytes, message rate in millions a second.
     */
    static PerftestHandshake.BwReport bandwidth(long size, long[] posted, long[] completed) {
        int n = posted.length;
        double total = (completed[n - 1] - posted[0]) / 1e9;
        double best = Double.MAX_VALUE;
        int step = Math.max(1, n / 2000); // bounded O(n^2) for long runs
        for (int i = 0; i < n; i += step) {
            for (int j = i; j < n; j++) {
                best = Math.min(best, (completed[j] - posted[i]) / 1e9 / (j - i + 1));
            }
        }
        double average = size * n / total / MEGA_BYTE;
        double peak = best > 0 ? size / best / MEGA_BYTE : average;
        return new PerftestHandshake.BwReport(size, n, peak, average, n / total / 1e6);
    }

    /**
     * The receiving side of send_bw (run_iter_bw_server): no peak (it prints 0.00), the average and
     * the rate over the span from the first receive completion to the last, as the C server does.
     */
    static PerftestHandshake.BwReport received(long size, long messages, long firstNanos, long lastNanos) {
        double total = Math.max(1, lastNanos - firstNanos) / 1e9;
        return new PerftestHandshake.BwReport(size, messages, 0, size * messages / total / MEGA_BYTE,
                messages / total / 1e6);
    }

    /** RESULT_FMT_LAT_DUR, the header of {@code -D} latency runs. */
    static final String LAT_DURATION_HEADER = " #bytes        #iterations       t_avg[usec]    tps average";

    /**
     * print_report_lat_duration: the sample time divided by the round-trip factor and the
     * iterations, and the transactions a second (iterations over the sample time).
     */
    static String latencyDurationRow(long size, PerftestTraffic.Counted counted, int rttFactor) {
        double sampleUsec = counted.sampleNanos() / 1000.0;
        double average = sampleUsec / rttFactor / counted.iterations();
        double tps = counted.iterations() / (counted.sampleNanos() / 1e9);
        // The iterations have no width: 12 spaces follow them whatever their length (ib_read_lat and
        // ib_send_lat -D output).
        return String.format(Locale.ROOT, " %-7d       %d            %-7.2f        %-7.2f", size, counted.iterations(),
                average, tps);
    }

    /** A {@code -D} bandwidth run's numbers: no peak (0.00, as the C tools print), the average over the sample. */
    static PerftestHandshake.BwReport bandwidth(long size, PerftestTraffic.Counted counted) {
        double seconds = counted.sampleNanos() / 1e9;
        return new PerftestHandshake.BwReport(size, counted.iterations(), 0,
                size * counted.iterations() / seconds / MEGA_BYTE, counted.iterations() / seconds / 1e6);
    }

    static String bandwidthRow(PerftestHandshake.BwReport r) {
        return String.format(Locale.ROOT, " %-7d    %-10d       %-7.2f            %-7.2f\t\t   %-7.6f", r.size(), r.iters(),
                r.bwPeak(), r.bwAverage(), r.msgRate());
    }
}
