package org.roce4j.emulator.fabric;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;
import static org.roce4j.emulator.fabric.TestFrames.A;
import static org.roce4j.emulator.fabric.TestFrames.B;
import static org.roce4j.emulator.fabric.TestFrames.frame;

import java.lang.management.ManagementFactory;
import org.junit.jupiter.api.Test;

/**
 * DESIGN.md §3.9: once warm, moving a frame allocates nothing. This counts bytes allocated by the
 * test thread (no timing); the speed itself is measured in bench/.
 */
class HotPathAllocationTest {

    @Test
    void transmittingAndDeliveringWarmFramesAllocatesNothing() {
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        assumeThat(threads.isThreadAllocatedMemorySupported()).isTrue();
        threads.setThreadAllocatedMemoryEnabled(true);
        try (Fabric fabric = Fabric.deterministic()) {
            long[] delivered = {0};
            FabricPort a = fabric.attach(A, (f, off, len, now) -> delivered[0]++);
            fabric.attach(B, (f, off, len, now) -> delivered[0]++);
            fabric.addAgent(now -> 0);
            byte[] small = frame(B, A, 1, 60);
            byte[] large = frame(B, A, 2, 4_200);
            byte[] toSelf = frame(A, A, 3, 300);

            runBursts(fabric, a, small, large, toSelf, 200);
            long threadId = Thread.currentThread().threadId();
            long before = threads.getThreadAllocatedBytes(threadId);
            runBursts(fabric, a, small, large, toSelf, 100);
            long allocated = threads.getThreadAllocatedBytes(threadId) - before;

            assertThat(delivered[0]).isEqualTo(300L * 3 * 50);
            assertThat(allocated).as("bytes allocated for 15000 frames").isLessThan(1_024);
        }
    }

    private static void runBursts(Fabric fabric, FabricPort port, byte[] small, byte[] large, byte[] toSelf, int bursts) {
        for (int burst = 0; burst < bursts; burst++) {
            for (int i = 0; i < 50; i++) {
                port.transmit(small, 0, small.length);
                port.transmit(large, 0, large.length);
                port.transmit(toSelf, 0, toSelf.length);
            }
            fabric.runUntilIdle();
        }
    }
}
