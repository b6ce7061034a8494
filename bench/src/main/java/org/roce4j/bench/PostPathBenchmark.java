package org.roce4j.bench;

import java.util.EnumSet;
import java.util.concurrent.TimeUnit;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.roce4j.verbs.Mtu;
import org.roce4j.verbs.Qp;
import org.roce4j.verbs.QpCap;
import org.roce4j.verbs.QpEx;
import org.roce4j.verbs.QpInitAttr;
import org.roce4j.verbs.QpInitAttrEx;
import org.roce4j.verbs.QpType;
import org.roce4j.verbs.SendFlag;
import org.roce4j.verbs.SendOpsFlag;
import org.roce4j.verbs.SendWr;

/**
 * The two ways to post send work requests on the emulator, side by side: 16 signaled 64-byte RDMA WRITEs
 * posted one {@code ibv_post_send} each with a reused {@link SendWr} ({@code sendWrPath}), or as one batch of the
 * extended QP's {@code ibv_wr_*} builder ({@code builderPath}: wr_start, 16 × wr_rdma_write + wr_set_sge,
 * wr_complete); each invocation then polls the 16 completions, so the datapath is in both and the ratio of the
 * two rates is what the posting costs add or save.
 */
public class PostPathBenchmark {
    private static final int BATCH = 16;

    @State(Scope.Thread)
    public static class Pair {
        EmulatedRcPair pair;
        QpEx qpEx;
        Qp peerOfEx;
        final SendWr write = new SendWr();
        int signaled;
        long remote;
        int rkey;
        int lkey;
        long local;

        @Setup(Level.Trial)
        public void setUp() throws Exception {
            pair = new EmulatedRcPair(64L * BATCH * 2, 2 * BATCH, Mtu.MTU_1024);
            qpEx = pair.pdA.createQpEx(new QpInitAttrEx(QpInitAttr.of(QpType.RC, pair.cqA,
                    QpCap.of(2 * BATCH, 2 * BATCH)), EnumSet.of(SendOpsFlag.RDMA_WRITE)));
            peerOfEx = pair.pdB.createQp(QpInitAttr.of(QpType.RC, pair.cqB, QpCap.of(2 * BATCH, 2 * BATCH)));
            EmulatedRcPair.connect(qpEx, peerOfEx, pair.contextA, pair.contextB, Mtu.MTU_1024);
            write.wrId(1).opcode(org.roce4j.verbs.WrOpcode.RDMA_WRITE).signaled(true).sge(pair.mrA, 0, 64)
                    .remote(pair.mrB.address(), pair.mrB.rkey());
            signaled = SendFlag.SIGNALED.bit();
            remote = pair.mrB.address();
            rkey = pair.mrB.rkey();
            lkey = pair.mrA.lkey();
            local = pair.mrA.address();
        }

        @TearDown(Level.Trial)
        public void tearDown() {
            qpEx.close();
            peerOfEx.close();
            pair.close();
        }
    }

    @Benchmark
    @BenchmarkMode(Mode.Throughput)
    @OutputTimeUnit(TimeUnit.SECONDS)
    @OperationsPerInvocation(BATCH)
    public int sendWrPath(Pair state) {
        EmulatedRcPair pair = state.pair;
        for (int i = 0; i < BATCH; i++) {
            pair.qpA.postSend(state.write);
        }
        return pair.await(pair.cqA, BATCH);
    }

    @Benchmark
    @BenchmarkMode(Mode.Throughput)
    @OutputTimeUnit(TimeUnit.SECONDS)
    @OperationsPerInvocation(BATCH)
    public int builderPath(Pair state) {
        QpEx qp = state.qpEx;
        qp.wrStart();
        qp.wrFlags(state.signaled);
        for (int i = 0; i < BATCH; i++) {
            qp.wrId(i);
            qp.wrRdmaWrite(state.rkey, state.remote + 64L * i);
            qp.wrSetSge(state.lkey, state.local, 64);
        }
        if (qp.wrComplete() != 0) {
            throw new IllegalStateException("ibv_wr_complete failed");
        }
        return state.pair.await(state.pair.cqA, BATCH);
    }
}
