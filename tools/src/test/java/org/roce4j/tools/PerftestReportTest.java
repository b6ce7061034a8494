package org.roce4j.tools;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** perftest 6.06's rows, character for character, against lines the C tools printed in the rxe VMs. */
class PerftestReportTest {
    @Test
    @DisplayName("a bandwidth row as ib_send_bw -s 3000 -n 5 printed it (tabs included)")
    void bandwidthRow() {
        assertThat(PerftestReport.bandwidthRow(new PerftestHandshake.BwReport(3000, 5, 0.80, 0.80, 0.000281)))
                .isEqualTo(" 3000       5                0.80               0.80   \t\t   0.000281");
    }

    @Test
    @DisplayName("a -D latency row as ib_read_lat -D 3 printed it: t_avg = sample / iterations, tps = iterations / sample")
    void latencyDurationRow() {
        PerftestTraffic.Counted counted = new PerftestTraffic.Counted(4769, 3_005_614_560L);

        assertThat(PerftestReport.latencyDurationRow(2, counted, 1)).isEqualTo(" 2             4769            630.24         1586.70");
        assertThat(PerftestReport.LAT_DURATION_HEADER).isEqualTo(" #bytes        #iterations       t_avg[usec]    tps average");
    }

    @Test
    @DisplayName("a -D ping-pong row halves the round trip (ib_send_lat -D 3: 772 iterations, t_avg 1944.20, tps 257.17;"
            + " the C tool's tps is not exactly 1/(2 t_avg), so its last digit may differ)")
    void pingpongDurationRow() {
        PerftestTraffic.Counted counted = new PerftestTraffic.Counted(772, Math.round(1944.20 * 2 * 772 * 1000));

        assertThat(PerftestReport.latencyDurationRow(8192, counted, 2)).startsWith(" 8192          772            1944.20        257.1")
                .hasSize(" 8192          772            1944.20        257.17 ".length());
    }

    @Test
    @DisplayName("the latency row: intervals between posts halved for ping-pongs, min/max/median/mean/stdev/percentiles")
    void latencyRow() {
        long[] posted = {0, 10_000, 30_000, 40_000, 60_000}; // intervals 10, 20, 10, 20 µs
        assertThat(PerftestReport.latencyRow(2, posted, 2)).isEqualTo(
                " 2       5          5.00           10.00        10.00    \t       7.50        \t2.50   \t\t10.00   \t\t10.00  ");
        assertThat(PerftestReport.latencyRow(2, posted, 1)).startsWith(" 2       5          10.00          20.00 ");
    }
}
