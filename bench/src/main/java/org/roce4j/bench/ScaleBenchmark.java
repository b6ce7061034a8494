package org.roce4j.bench;

import java.util.Arrays;
import java.util.Collections;
import java.util.Random;
import java.util.concurrent.TimeUnit;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
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
import org.roce4j.verbs.SendWr;
import org.roce4j.verbs.WrOpcode;

/**
 * Cost per message as the number of active RC QP pairs grows (issue 17: flat within 2× from 1 to
 * 10,000). {@code pairs} connected QP pairs between two emulated RNICs, one CQ per side shared by
 * all of them, as a server with many connections has. Every pair carries traffic: the benchmark
 * walks the pairs round robin, so at 10,000 each QP's state is cold when its turn comes. {@code order}
 * says in which order: {@code creation} (the order the QPs were made, which the hardware prefetcher
 * can follow through the heap) or {@code random} (a fixed permutation, seed 42: a server whose
 * requests arrive in no particular order across its connections).
 *
 * <ul>
 *   <li>{@code writeRate}: 16 signaled 64-byte RDMA WRITEs in flight, each on the next pair;
 *       messages per second.</li>
 *   <li>{@code writeLatency}: one 64-byte RDMA WRITE on the next pair, posted and completed; sample
 *       mode for the median and p99.</li>
 *   <li>{@code writeRoundEveryPairBusy}: one signaled 64-byte RDMA WRITE on every pair at once, then all
 *       their completions: {@code pairs} QPs with a WRITE outstanding and an ACK timer armed, as a server
 *       whose every connection has a request in flight; the time of a round (divided by {@code pairs}:
 *       the cost per message).</li>
 * </ul>
 * Heap per QP is {@link QpFootprintBenchmark}'s.
 */
public class ScaleBenchmark {
    static final int IN_FLIGHT = 16;

    @State(Scope.Thread)
    public static class Pairs {
        @Param({"1", "10", "100", "1000", "10000"})
        int pairs;
        @Param({"deterministic", "threaded"})
        String fabric;
        @Param({"creation", "random"})
        String order;
        EmulatedRcPair nodes;
        Qp[] qps;
        Qp[] peers;
        /** {@link #qps} in the order they are visited. */
        Qp[] visiting;
        /**
         * One work request for every pair, its wr_id set per post: as a C application builds its
         * {@code ibv_send_wr} on the stack, so what grows with the pairs is the RNIC's state, not the
         * benchmark's (one SendWr and SGE list per pair cost three cache misses per post at 10,000 pairs).
         */
        SendWr write;
        int next;

        @Setup(Level.Trial)
        public void setUp() throws Exception {
            nodes = new EmulatedRcPair(EmulatedRcPair.fabric(fabric), 4096, IN_FLIGHT, Mtu.MTU_1024);
            qps = new Qp[pairs];
            peers = new Qp[pairs];
            qps[0] = nodes.qpA;
            QpInitAttr atA = QpInitAttr.of(QpType.RC, nodes.cqA, QpCap.of(IN_FLIGHT, 1));
            QpInitAttr atB = QpInitAttr.of(QpType.RC, nodes.cqB, QpCap.of(1, IN_FLIGHT));
            for (int i = 1; i < pairs; i++) {
                Qp a = nodes.pdA.createQp(atA);
                Qp b = nodes.pdB.createQp(atB);
                EmulatedRcPair.connect(a, b, nodes.contextA, nodes.contextB, Mtu.MTU_1024);
                qps[i] = a;
                peers[i] = b;
            }
            visiting = qps.clone();
            if (order.equals("random")) {
                Collections.shuffle(Arrays.asList(visiting), new Random(42));
            } else if (!order.equals("creation")) {
                throw new IllegalArgumentException("order: creation or random, not " + order);
            }
            write = new SendWr().opcode(WrOpcode.RDMA_WRITE).signaled(true)
                    .sge(nodes.mrA, 0, 64).remote(nodes.mrB.address() + 64, nodes.mrB.rkey());
            sizeCq();
        }

        /** The shared send CQ as {@link EmulatedRcPair} made it: room for what {@link #IN_FLIGHT} completes. */
        void sizeCq() {
        }

        /** Posts a WRITE on every pair, then waits for all their completions. */
        int writeOnEveryPair() {
            for (int i = 0; i < pairs; i++) {
                postNext();
            }
            return nodes.await(nodes.cqA, pairs);
        }

        /** Posts a WRITE on the next pair in turn. */
        void postNext() {
            visiting[next].postSend(write.wrId(next));
            next = next + 1 == pairs ? 0 : next + 1;
        }

        @TearDown(Level.Trial)
        public void tearDown() {
            for (int i = 1; i < qps.length; i++) {
                qps[i].close();
                peers[i].close();
            }
            nodes.close();
        }
    }

    @Benchmark
    @BenchmarkMode(Mode.Throughput)
    @OutputTimeUnit(TimeUnit.SECONDS)
    @OperationsPerInvocation(IN_FLIGHT)
    public int writeRate(Pairs state) {
        for (int i = 0; i < IN_FLIGHT; i++) {
            state.postNext();
        }
        return state.nodes.await(state.nodes.cqA, IN_FLIGHT);
    }

    /** {@link Pairs} whose shared send CQ holds a completion of every pair at once. */
    @State(Scope.Thread)
    public static class BusyPairs extends Pairs {
        @Override
        void sizeCq() {
            nodes.cqA.resize(Math.max(nodes.cqA.capacity(), pairs));
        }
    }

    @Benchmark
    @BenchmarkMode(Mode.AverageTime)
    @OutputTimeUnit(TimeUnit.MICROSECONDS)
    public int writeRoundEveryPairBusy(BusyPairs state) {
        return state.writeOnEveryPair();
    }

    @Benchmark
    @BenchmarkMode(Mode.SampleTime)
    @OutputTimeUnit(TimeUnit.MICROSECONDS)
    public int writeLatency(Pairs state) {
        state.postNext();
        return state.nodes.await(state.nodes.cqA, 1);
    }
}
