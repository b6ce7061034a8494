package org.roce4j.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.integers;

import org.junit.jupiter.api.Test;

class PsnTest {

    @Test
    void nextWrapsAt24Bits() {
        assertThat(Psn.next(0xFFFFFF)).isZero();
        assertThat(Psn.add(0xFFFFFE, 3)).isEqualTo(1);
        assertThat(Psn.add(1, -2)).isEqualTo(0xFFFFFF);
    }

    @Test
    void comparisonUsesTheHalfSpaceWindow() {
        assertThat(Psn.isAfter(0, 0xFFFFFF)).as("0 follows 0xFFFFFF across the wrap").isTrue();
        assertThat(Psn.isBefore(0xFFFFFF, 0)).isTrue();
        assertThat(Psn.compare(5, 5)).isZero();
        assertThat(Psn.isAfter(Psn.HALF_WINDOW - 1, 0)).isTrue();
        assertThat(Psn.isAfter(Psn.HALF_WINDOW, 0)).as("exactly 2^23 ahead counts as behind").isFalse();
    }

    @Test
    void anyPsnWithinTheWindowAheadComparesAfter() {
        qt().forAll(integers().between(0, Psn.MASK), integers().between(1, Psn.HALF_WINDOW - 1)).checkAssert((psn, delta) -> {
            int ahead = Psn.add(psn, delta);
            assertThat(Psn.isAfter(ahead, psn)).isTrue();
            assertThat(Psn.isBefore(psn, ahead)).isTrue();
            assertThat(Psn.distance(psn, ahead)).isEqualTo(delta);
            assertThat(Psn.isValid(ahead)).isTrue();
        });
    }
}
