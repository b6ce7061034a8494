package org.roce4j.bench;

import java.lang.foreign.MemorySegment;
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
import org.roce4j.verbs.RecvWr;
import org.roce4j.verbs.SendWr;
import org.roce4j.verbs.Srq;
import org.roce4j.verbs.SrqInitAttr;
import org.roce4j.verbs.WcStatus;
import org.roce4j.verbs.WorkCompletion;
import org.roce4j.verbs.WrOpcode;

/**
 * The in-process RNIC end to end: work requests posted through verbs-api, real RoCEv2 frames
 * (encoded, ICRC computed and verified) through the deterministic fabric, completions polled.
 *
 * <ul>
 *   <li>{@code rdmaWrite} vs {@code memorySegmentCopy}: RC RDMA WRITE goodput for one message of
 *       {@code size} bytes (path MTU 4096) against copying the same bytes; their ratio is the
 *       goodput ratio (target ≥ 0.4).</li>
 *   <li>{@code rdmaWriteStream}: the same WRITEs with 16 always in flight, one posted for every completion —
 *       goodput as perftest's {@code ib_write_bw} measures it (its {@code tx_depth} kept outstanding);
 *       {@code rdmaWrite} waits for each WRITE, so every one also pays the trip's fixed cost.</li>
 *   <li>{@code send64}: RC SEND message rate, 64-byte messages, 16 in flight (target ≥ 1.5 M/s), on
 *       the deterministic fabric and on the threaded one (its event loop moves the frames while the
 *       benchmark thread posts and polls).</li>
 *   <li>{@code sendStream64}: the same messages with 16 always in flight, one posted for every send
 *       completion and a receive reposted for every receive completion — how perftest's
 *       {@code ib_send_bw} measures a message rate (its {@code tx_depth} kept outstanding). {@code send64}
 *       waits for all 16 before it posts again, so each batch also pays one message's latency.</li>
 *   <li>{@code srqSendStream64}: {@code sendStream64} with the receives on a shared receive queue
 *       ({@code ibv_post_srq_recv}).</li>
 *   <li>{@code pingPong64}: a 64-byte SEND there and one back, sample mode for the median
 *       round-trip time (target median ≤ 3 µs deterministic; threaded ≤ 5 µs one way).</li>
 * </ul>
 */
public class EmulatorBenchmark {
    static final int BATCH = 16;

    @State(Scope.Thread)
    public static class Write {
        @Param({"4096", "65536"})
        int size;
        EmulatedRcPair pair;
        SendWr write;
        MemorySegment source;
        MemorySegment target;

        @Setup(Level.Trial)
        public void setUp() throws Exception {
            pair = new EmulatedRcPair(2L * size, 16, Mtu.MTU_4096);
            write = SendWr.rdmaWrite(1, pair.mrA, 0, size, pair.mrB.address(), pair.mrB.rkey());
            source = pair.memoryA.asSlice(0, size);
            target = pair.memoryA.asSlice(size, size);
        }

        @TearDown(Level.Trial)
        public void tearDown() {
            pair.close();
        }
    }

    @Benchmark
    @BenchmarkMode(Mode.Throughput)
    @OutputTimeUnit(TimeUnit.SECONDS)
    public int rdmaWrite(Write state) {
        state.pair.qpA.postSend(state.write);
        return state.pair.await(state.pair.cqA, 1);
    }

    /** {@link Write} with {@link #BATCH} WRITEs in flight from the start: the stream {@link #rdmaWriteStream} keeps up. */
    @State(Scope.Thread)
    public static class WriteStream extends Write {
        final WorkCompletion[][] upTo = completionArraysUpTo(BATCH);

        @Override
        @Setup(Level.Trial)
        public void setUp() throws Exception {
            super.setUp();
            for (int i = 0; i < BATCH; i++) {
                pair.qpA.postSend(write);
            }
        }
    }

    @Benchmark
    @BenchmarkMode(Mode.Throughput)
    @OutputTimeUnit(TimeUnit.SECONDS)
    @OperationsPerInvocation(BATCH)
    public int rdmaWriteStream(WriteStream state) {
        int completed = 0;
        while (completed < BATCH) {
            completed += postOnePerCompletion(state.pair, state.upTo[BATCH - completed], state.write);
        }
        return completed;
    }

    /** {@code upTo[k]} has k slots: a poll never takes more completions than the invocation still counts. */
    static WorkCompletion[][] completionArraysUpTo(int max) {
        WorkCompletion[][] upTo = new WorkCompletion[max + 1][];
        for (int k = 0; k <= max; k++) {
            upTo[k] = new WorkCompletion[k];
        }
        return upTo;
    }

    /** Polls A's send CQ once into {@code polled} and posts {@code wr} again for every completion; {@return how many} */
    static int postOnePerCompletion(EmulatedRcPair pair, WorkCompletion[] polled, SendWr wr) {
        return postOnePerCompletion(pair, polled, wr, WcStatus.SUCCESS);
    }

    /** {@link #postOnePerCompletion(EmulatedRcPair, WorkCompletion[], SendWr)} of completions that must have {@code expected}. */
    static int postOnePerCompletion(EmulatedRcPair pair, WorkCompletion[] polled, SendWr wr, WcStatus expected) {
        int n = pair.cqA.poll(polled);
        for (int i = 0; i < n; i++) {
            EmulatedRcPair.requireStatus(polled[i], expected);
            pair.qpA.postSend(wr);
        }
        return n;
    }

    @Benchmark
    @BenchmarkMode(Mode.Throughput)
    @OutputTimeUnit(TimeUnit.SECONDS)
    public MemorySegment memorySegmentCopy(Write state) {
        return state.target.copyFrom(state.source);
    }

    @State(Scope.Thread)
    public static class Send {
        /** The deterministic fabric (the caller's thread drives it) or the threaded one (its own event loop). */
        @Param({"deterministic", "threaded"})
        String fabric;
        EmulatedRcPair pair;
        final SendWr send = new SendWr();
        final RecvWr[] receives = new RecvWr[BATCH];

        @Setup(Level.Trial)
        public void setUp() throws Exception {
            pair = new EmulatedRcPair(EmulatedRcPair.fabric(fabric), 64L * BATCH * 2, 2 * BATCH, Mtu.MTU_1024);
            send.wrId(1).opcode(WrOpcode.SEND).signaled(true).sge(pair.mrA, 0, 64);
            for (int i = 0; i < BATCH; i++) {
                receives[i] = RecvWr.of(100 + i, pair.mrB, 64L * i, 64);
            }
        }

        @TearDown(Level.Trial)
        public void tearDown() {
            pair.close();
        }
    }

    @Benchmark
    @BenchmarkMode(Mode.Throughput)
    @OutputTimeUnit(TimeUnit.SECONDS)
    @OperationsPerInvocation(BATCH)
    public int send64(Send state) {
        EmulatedRcPair pair = state.pair;
        for (int i = 0; i < BATCH; i++) {
            pair.qpB.postRecv(state.receives[i]);
        }
        for (int i = 0; i < BATCH; i++) {
            pair.qpA.postSend(state.send);
        }
        return pair.await(pair.cqA, BATCH) + pair.await(pair.cqB, BATCH);
    }

    @State(Scope.Thread)
    public static class SendStream {
        @Param({"deterministic", "threaded"})
        String fabric;
        EmulatedRcPair pair;
        final SendWr send = new SendWr();
        /** Twice the sends in flight, each reposted when its completion is polled: no send waits for a receive (RNR). */
        final RecvWr[] receives = new RecvWr[2 * BATCH];
        final WorkCompletion[][] upTo = completionArraysUpTo(BATCH);
        final WorkCompletion[] received = new WorkCompletion[2 * BATCH];

        @Setup(Level.Trial)
        public void setUp() throws Exception {
            pair = new EmulatedRcPair(EmulatedRcPair.fabric(fabric), 64L * 2 * BATCH, 2 * BATCH, Mtu.MTU_1024);
            prepareReceiver();
            send.wrId(1).opcode(WrOpcode.SEND).signaled(true).sge(pair.mrA, 0, 64);
            for (int i = 0; i < receives.length; i++) {
                receives[i] = RecvWr.of(i, pair.mrB, 64L * i, 64);
                postReceive(receives[i]);
            }
            for (int i = 0; i < BATCH; i++) {
                pair.qpA.postSend(send);
            }
        }

        /** Before the first receive is posted: B's QP takes its receives from its own queue. */
        void prepareReceiver() {
        }

        /** {@code ibv_post_recv} on B's QP. */
        void postReceive(RecvWr wr) {
            pair.qpB.postRecv(wr);
        }

        @TearDown(Level.Trial)
        public void tearDown() {
            pair.close();
        }

        /** Reposts the receive of every receive completion waiting at B. */
        void repostReceives() {
            int n = pair.cqB.poll(received);
            for (int i = 0; i < n; i++) {
                EmulatedRcPair.requireSuccess(received[i]);
                postReceive(receives[(int) received[i].wrId()]);
            }
        }
    }

    /**
     * {@link SendStream} with B's receives on a shared receive queue ({@code ibv_post_srq_recv}), as a server that
     * serves many connections from one pool of receives posts them.
     */
    @State(Scope.Thread)
    public static class SrqSendStream extends SendStream {
        Srq srq;

        @Override
        void prepareReceiver() {
            srq = pair.pdB.createSrq(new SrqInitAttr(2 * BATCH, 1, 0));
            Qp a = pair.pdA.createQp(QpInitAttr.of(QpType.RC, pair.cqA, QpCap.of(2 * BATCH, 1)));
            Qp b = pair.pdB.createQp(new QpInitAttr(QpType.RC, pair.cqB, pair.cqB, srq, QpCap.of(1, 0), false));
            EmulatedRcPair.connect(a, b, pair.contextA, pair.contextB, Mtu.MTU_1024);
            EmulatedRcPair.closeInOrder(pair.qpA, pair.qpB);
            pair.qpA = a;
            pair.qpB = b;
        }

        @Override
        void postReceive(RecvWr wr) {
            srq.postRecv(wr);
        }

        @Override
        public void tearDown() { // SendStream's @TearDown: JMH calls it once, and this override runs
            EmulatedRcPair.closeInOrder(pair.qpA, pair.qpB, srq);
            pair.close();
        }
    }

    @Benchmark
    @BenchmarkMode(Mode.Throughput)
    @OutputTimeUnit(TimeUnit.SECONDS)
    @OperationsPerInvocation(BATCH)
    public int sendStream64(SendStream state) {
        int completed = 0;
        while (completed < BATCH) {
            completed += postOnePerCompletion(state.pair, state.upTo[BATCH - completed], state.send);
            state.repostReceives();
        }
        return completed;
    }

    @Benchmark
    @BenchmarkMode(Mode.Throughput)
    @OutputTimeUnit(TimeUnit.SECONDS)
    @OperationsPerInvocation(BATCH)
    public int srqSendStream64(SrqSendStream state) {
        return sendStream64(state);
    }

    @State(Scope.Thread)
    public static class PingPong {
        @Param({"deterministic", "threaded"})
        String fabric;
        EmulatedRcPair pair;
        SendWr ping;
        SendWr pong;
        RecvWr receiveAtA;
        RecvWr receiveAtB;

        @Setup(Level.Trial)
        public void setUp() throws Exception {
            pair = new EmulatedRcPair(EmulatedRcPair.fabric(fabric), 4096, 16, Mtu.MTU_1024);
            // Signaled sends, as ibv_rc_pingpong posts them.
            ping = new SendWr().wrId(1).opcode(WrOpcode.SEND).signaled(true).sge(pair.mrA, 0, 64);
            pong = new SendWr().wrId(2).opcode(WrOpcode.SEND).signaled(true).sge(pair.mrB, 0, 64);
            receiveAtA = RecvWr.of(3, pair.mrA, 1024, 64);
            receiveAtB = RecvWr.of(4, pair.mrB, 1024, 64);
        }

        @TearDown(Level.Trial)
        public void tearDown() {
            pair.close();
        }
    }

    @Benchmark
    @BenchmarkMode(Mode.SampleTime)
    @OutputTimeUnit(TimeUnit.MICROSECONDS)
    public int pingPong64(PingPong state) {
        EmulatedRcPair pair = state.pair;
        pair.qpB.postRecv(state.receiveAtB);
        pair.qpA.postRecv(state.receiveAtA);
        pair.qpA.postSend(state.ping);
        pair.await(pair.cqB, 1);           // the ping arrived
        pair.qpB.postSend(state.pong);
        int a = pair.await(pair.cqA, 2);   // the ping's send completion and the pong's arrival
        return a + pair.await(pair.cqB, 1); // the pong's send completion
    }
}
