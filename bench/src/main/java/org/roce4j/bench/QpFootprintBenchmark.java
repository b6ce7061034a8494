package org.roce4j.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.util.ArrayList;
import java.util.List;
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
import org.roce4j.verbs.Mtu;
import org.roce4j.verbs.Qp;
import org.roce4j.verbs.QpCap;
import org.roce4j.verbs.QpInitAttr;
import org.roce4j.verbs.QpType;

/**
 * Heap per idle connected RC QP with 16-deep queues (target ≤ 8 KiB): creates {@code pairs} QP
 * pairs between two emulated RNICs, connects each to RTS, and reports the retained heap growth
 * divided by the number of QPs as the secondary result {@code heapBytesPerQp}. Single shot: the
 * time is the cost of setting up that many connections.
 */
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
public class QpFootprintBenchmark {
    @State(Scope.Thread)
    public static class Pairs {
        @Param({"10000"})
        int pairs;
        EmulatedRcPair nodes;
        final List<Qp> qps = new ArrayList<>();

        @Setup(Level.Iteration)
        public void setUp() throws Exception {
            nodes = new EmulatedRcPair(4096, 16, Mtu.MTU_1024);
        }

        @TearDown(Level.Iteration)
        public void tearDown() {
            qps.forEach(Qp::close);
            qps.clear();
            nodes.close();
        }
    }

    @AuxCounters(AuxCounters.Type.EVENTS)
    @State(Scope.Thread)
    public static class Footprint {
        public double heapBytesPerQp;
    }

    @Benchmark
    public int connectIdleQpPairs(Pairs state, Footprint footprint) {
        MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
        long before = usedHeapAfterGc(memory);
        EmulatedRcPair nodes = state.nodes;
        QpInitAttr atA = QpInitAttr.of(QpType.RC, nodes.cqA, QpCap.of(16, 16));
        QpInitAttr atB = QpInitAttr.of(QpType.RC, nodes.cqB, QpCap.of(16, 16));
        for (int i = 0; i < state.pairs; i++) {
            Qp a = nodes.pdA.createQp(atA);
            Qp b = nodes.pdB.createQp(atB);
            EmulatedRcPair.connect(a, b, nodes.contextA, nodes.contextB, Mtu.MTU_1024);
            state.qps.add(a);
            state.qps.add(b);
        }
        long after = usedHeapAfterGc(memory);
        footprint.heapBytesPerQp = (after - before) / (2.0 * state.pairs);
        return state.qps.size();
    }

    private static long usedHeapAfterGc(MemoryMXBean memory) {
        for (int i = 0; i < 3; i++) {
            System.gc();
        }
        return memory.getHeapMemoryUsage().getUsed();
    }
}
