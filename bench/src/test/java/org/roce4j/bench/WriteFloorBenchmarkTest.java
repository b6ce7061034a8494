package org.roce4j.bench;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The frame floor moves the whole message by either path, whatever its size: what README's floor numbers claim it does. */
class WriteFloorBenchmarkTest {

    @ParameterizedTest(name = "{0} bytes")
    @ValueSource(ints = {1, 4096, 5000, 65536})
    void bothPathsPlaceTheWholeMessage(int size) {
        WriteFloorBenchmark floor = new WriteFloorBenchmark();
        floor.size = size;
        floor.setUp();
        try {
            floor.target.fill((byte) 0);
            floor.framesTwoCopies();
            assertThat(floor.target.mismatch(floor.source)).as("two copies").isEqualTo(-1);
            floor.target.fill((byte) 0);
            floor.framesOneCopy();
            assertThat(floor.target.mismatch(floor.source)).as("one copy").isEqualTo(-1);
        } finally {
            floor.tearDown();
        }
    }
}
