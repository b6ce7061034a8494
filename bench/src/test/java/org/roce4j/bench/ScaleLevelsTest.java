package org.roce4j.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** {@link ScaleLevels} measures one pair and many in every window, and prints a row per window and the ratios' medians. */
class ScaleLevelsTest {

    @ParameterizedTest
    @ValueSource(strings = {"deterministic", "threaded"})
    void everyWindowMeasuresOnePairAndMany(String fabric) throws Exception {
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        double[][] rates = ScaleLevels.run(new ScaleLevels.Plan(2, "random", fabric, 200, 8, 20_000_000L, 10),
                new PrintStream(printed, true, StandardCharsets.UTF_8));

        assertThat(rates).hasDimensions(2, 2);
        for (double[] state : rates) {
            for (double rate : state) {
                assertThat(rate).isPositive().isFinite();
            }
        }
        String out = printed.toString(StandardCharsets.UTF_8);
        assertThat(out).startsWith(fabric + " fabric, order random");
        assertThat(out.lines().filter(line -> line.matches("\\s+[01]\\s+\\d+\\s.*"))).hasSize(2);
        assertThat(out.lines().filter(line -> line.matches("(all windows|probe .*): 1 pair .*, 8 pairs .*, ratio .*")))
                .hasSize(3);
    }
}
