package org.roce4j.bench;

import java.util.concurrent.TimeUnit;

import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.roce4j.emulator.fabric.Faults;
import org.roce4j.verbs.Mtu;
import org.roce4j.verbs.SendWr;

/**
 * Goodput of 64 KiB RC RDMA WRITEs (path MTU 4096, 16 packets each) against the loss rate, in
 * deterministic mode: frames in both directions dropped with probability {@code loss} (seed 1), the
 * RNIC recovering with sequence NAKs, go-back-N and its ACK timeout (2^10 × 4.096 µs ≈ 4.2 ms).
 *
 * <p>The score is wall-clock writes per second: how fast the emulator gets through a lossy
 * workload. The secondary result {@code virtualMicros} is the protocol time per write on the
 * fabric's virtual clock (1 µs link delay, no bandwidth limit): what the transport itself achieves.
 * The RNICs retry forever at retry_cnt 7, as Linux rxe does: with IBTA's seven retries a run of
 * hundreds of thousands of writes at 20% loss meets 8 losses in a row of one PSN and ends in
 * RETRY_EXC_ERR, which is right but would end the measurement.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class LossyWriteBenchmark {
    static final int SIZE = 64 * 1024;
    static final int ACK_TIMEOUT = 10;

    @State(Scope.Thread)
    public static class Link {
        @Param({"0", "0.01", "0.05", "0.2"})
        double loss;
        EmulatedRcPair pair;
        SendWr write;

        @Setup(Level.Trial)
        public void setUp() throws Exception {
            pair = new EmulatedRcPair(2L * SIZE, 16, Mtu.MTU_4096, ACK_TIMEOUT, true);
            if (loss > 0) {
                pair.fabric.faults(Faults.seeded(1).drop(loss));
            }
            write = SendWr.rdmaWrite(1, pair.mrA, 0, SIZE, pair.mrB.address(), pair.mrB.rkey());
        }

        @TearDown(Level.Trial)
        public void tearDown() {
            pair.close();
        }
    }

    /** Virtual microseconds per write, averaged over the iteration. */
    @AuxCounters(AuxCounters.Type.EVENTS)
    @State(Scope.Thread)
    public static class VirtualTime {
        public double virtualMicros;
        long writes;
        long virtualNanos;

        @Setup(Level.Iteration)
        public void reset() {
            writes = 0;
            virtualNanos = 0;
            virtualMicros = 0;
        }
    }

    @Benchmark
    public int rdmaWrite64KiB(Link link, VirtualTime time) {
        long start = link.pair.fabric.clock().nanoTime();
        link.pair.qpA.postSend(link.write);
        int completions = link.pair.await(link.pair.cqA, 1);
        time.virtualNanos += link.pair.fabric.clock().nanoTime() - start;
        time.writes++;
        time.virtualMicros = time.virtualNanos / 1_000.0 / time.writes;
        return completions;
    }
}
