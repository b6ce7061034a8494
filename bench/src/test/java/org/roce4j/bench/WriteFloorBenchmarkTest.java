package org.roce4j.bench;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The floors do what README's floor numbers claim: the frames move the whole message, the verbs' WRITEs complete as flushes, the fabric carries each WRITE's two frames. */
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

    @Test
    void verbsAloneCompletesEveryWriteItPostsAsAFlush() throws Exception {
        WriteFloorBenchmark floor = floorOf(4096);
        WriteFloorBenchmark.Flushed flushed = new WriteFloorBenchmark.Flushed();
        flushed.setUp(floor);
        try {
            assertThat(floor.verbsAlone(flushed)).isEqualTo(EmulatorBenchmark.BATCH);
            long framesBefore = flushed.pair.fabric.counters().framesTransmitted();
            assertThat(floor.verbsAlone(flushed)).isEqualTo(EmulatorBenchmark.BATCH);
            assertThat(flushed.pair.fabric.counters().framesTransmitted()).as("no frame").isEqualTo(framesBefore);
        } finally {
            flushed.tearDown();
            floor.tearDown();
        }
    }

    @Test
    void fabricAloneDeliversEachWritesFrameAndItsAck() {
        WriteFloorBenchmark floor = floorOf(4096);
        WriteFloorBenchmark.TwoPorts ports = new WriteFloorBenchmark.TwoPorts();
        ports.setUp(floor);
        try {
            long delivered = ports.fabric.counters().framesDelivered();
            assertThat(floor.fabricAlone(ports)).isEqualTo(EmulatorBenchmark.BATCH);
            assertThat(ports.fabric.counters().framesDelivered() - delivered).isEqualTo(2L * EmulatorBenchmark.BATCH);
        } finally {
            ports.tearDown();
            floor.tearDown();
        }
    }

    private static WriteFloorBenchmark floorOf(int size) {
        WriteFloorBenchmark floor = new WriteFloorBenchmark();
        floor.size = size;
        floor.setUp();
        return floor;
    }
}
