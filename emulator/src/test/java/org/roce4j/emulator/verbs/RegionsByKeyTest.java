package org.roce4j.emulator.verbs;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.MemorySegment;
import java.util.HashMap;
import java.util.Map;
import java.util.SplittableRandom;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class RegionsByKeyTest {
    private static final long SEED = 0x5EEDL;

    @Test
    @DisplayName("The key table agrees with a HashMap through 200,000 random puts, removes and gets (seed " + SEED + ")")
    void agreesWithAMap() {
        SplittableRandom random = new SplittableRandom(SEED);
        RegionsByKey table = new RegionsByKey();
        Map<Integer, MemoryRegion> model = new HashMap<>();
        MemoryRegion[] regions = new MemoryRegion[8];
        for (int i = 0; i < regions.length; i++) {
            regions[i] = new MemoryRegion(MemorySegment.NULL, 0, null);
        }
        for (int step = 0; step < 200_000; step++) {
            // Small key spaces make long probe runs and wrap-arounds; counted keys as the sequential layout.
            int key = switch (random.nextInt(3)) {
                case 0 -> random.nextInt(1, 3000);
                case 1 -> random.nextInt(1, 500) << 8 | random.nextInt(256);
                default -> random.nextInt();
            };
            if (key == 0) {
                continue;
            }
            switch (random.nextInt(3)) {
                case 0 -> {
                    MemoryRegion r = regions[random.nextInt(regions.length)];
                    table.put(key, r);
                    model.put(key, r);
                }
                case 1 -> {
                    table.remove(key);
                    model.remove(key);
                }
                default -> assertThat(table.get(key)).as("step %d key %x", step, key).isSameAs(model.get(key));
            }
            assertThat(table.size()).isEqualTo(model.size());
        }
        for (Map.Entry<Integer, MemoryRegion> e : model.entrySet()) {
            assertThat(table.get(e.getKey())).isSameAs(e.getValue());
        }
        assertThat(table.get(0)).isNull();
    }
}
