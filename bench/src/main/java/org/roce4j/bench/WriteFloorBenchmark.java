package org.roce4j.bench;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;
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
import org.roce4j.emulator.fabric.Fabric;
import org.roce4j.emulator.fabric.FabricPort;
import org.roce4j.emulator.fabric.FrameReceiver;
import org.roce4j.verbs.Mtu;
import org.roce4j.verbs.QpAttr;
import org.roce4j.verbs.QpState;
import org.roce4j.verbs.SendWr;
import org.roce4j.verbs.WcStatus;
import org.roce4j.verbs.WorkCompletion;
import org.roce4j.wire.AethSyndrome;
import org.roce4j.wire.MacAddress;
import org.roce4j.wire.Opcode;
import org.roce4j.wire.PacketInfo;
import org.roce4j.wire.PacketWriter;
import org.roce4j.wire.Position;

/**
 * The least an RDMA WRITE costs when it travels as RoCEv2 frames (issue 17's floor for the
 * deterministic fabric's goodput against {@code MemorySegment.copy}): for each packet of the
 * message (path MTU 4096) the headers written by the wire library's {@link PacketWriter} (Ethernet,
 * IPv4, UDP, BTH, a RETH on the first), the frame parsed by {@link PacketInfo} as the receiving RNIC
 * parses a frame nothing could have changed (no ICRC, as on the in-process fabric), the payload
 * placed in the target segment; then one ACK written and parsed. Nothing else: no queue pair, no
 * work request, no PSN or key check, no fabric between the two ends, no completion — every one of
 * which the emulator adds. Two ways to move the bytes:
 *
 * <ul>
 *   <li>{@code framesTwoCopies}: as the emulator does, source → frame → target (the frame is real:
 *       a tap or a UDP link can read it);</li>
 *   <li>{@code framesOneCopy}: the frame carries headers only and the payload goes from the source
 *       segment to the target in one copy, as DMA would (issue 17's "one copy" direction).</li>
 * </ul>
 * {@code memorySegmentCopy} is the baseline of the goodput target, as in {@link EmulatorBenchmark}.
 *
 * <p>The other half of the floor, {@code verbsAlone}: what a WRITE costs through the emulated RNIC's verbs
 * with no frame and no protocol — posted ({@code ibv_post_send}: checked and its WQE written, under the fabric
 * lock as the deterministic fabric posts), completed and polled — because the QP is in the error state, where
 * the post flushes it at once with {@link WcStatus#WR_FLUSH_ERR} (IBTA 10.8.3.1, as rxe does; no duty cycle
 * runs a requester for it). Sixteen in flight,
 * one posted for every completion, as {@link EmulatorBenchmark#rdmaWriteStream} keeps them.
 *
 * <p>And the fabric's share, {@code fabricAlone}: a WRITE's two frames — its headers (the payload stays where it
 * is, as the one copy carries it) and the ACK its receiver sends back — each routed through the deterministic
 * fabric's queue in virtual time and delivered, between two ports whose receivers do nothing else; sixteen
 * WRITEs a step. So the three floors — frames, verbs, fabric — are each what the emulator's WRITE does with the
 * rest taken away.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class WriteFloorBenchmark {
    private static final int MTU = 4096;
    private static final byte[] SOURCE_IP = {10, 0, 0, 1};
    private static final byte[] DESTINATION_IP = {10, 0, 0, 2};
    private static final long SOURCE_MAC = 0x02000000000AL;
    private static final long DESTINATION_MAC = 0x02000000000BL;

    @Param({"4096", "65536"})
    int size;

    private final PacketWriter writer = new PacketWriter();
    private final PacketInfo info = new PacketInfo();
    private final byte[] frame = new byte[MTU + PacketWriter.MAX_HEADERS_LENGTH + 64];
    private Arena arena;
    MemorySegment source;
    MemorySegment target;
    private int psn;

    @Setup(Level.Trial)
    public void setUp() {
        writer.offloadIcrc(true);
        arena = Arena.ofShared();
        source = arena.allocate(size, 64);
        target = arena.allocate(size, 64);
        for (long i = 0; i < size; i++) {
            source.set(ValueLayout.JAVA_BYTE, i, (byte) (i % 255 + 1)); // never 0: a byte left unplaced shows
        }
        // Fail the run, not the numbers, when the floor does not move the message.
        framesTwoCopies();
        requireCopied();
        target.fill((byte) 0);
        framesOneCopy();
        requireCopied();
    }

    private void requireCopied() {
        if (source.mismatch(target) != -1) {
            throw new IllegalStateException("the floor did not place the message");
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        arena.close();
    }

    @Benchmark
    public int framesTwoCopies() {
        return write(true);
    }

    @Benchmark
    public int framesOneCopy() {
        return write(false);
    }

    /** An {@link EmulatedRcPair} whose requester is in the error state, {@link EmulatorBenchmark#BATCH} WRITEs posted. */
    @State(Scope.Thread)
    public static class Flushed {
        EmulatedRcPair pair;
        SendWr write;
        final WorkCompletion[][] upTo = EmulatorBenchmark.completionArraysUpTo(EmulatorBenchmark.BATCH);

        @Setup(Level.Trial)
        public void setUp(WriteFloorBenchmark floor) throws Exception {
            pair = new EmulatedRcPair(2L * floor.size, EmulatorBenchmark.BATCH, Mtu.MTU_4096);
            write = SendWr.rdmaWrite(1, pair.mrA, 0, floor.size, pair.mrB.address(), pair.mrB.rkey());
            pair.qpA.modify(new QpAttr().qpState(QpState.ERR));
            for (int i = 0; i < EmulatorBenchmark.BATCH; i++) {
                pair.qpA.postSend(write);
            }
        }

        @TearDown(Level.Trial)
        public void tearDown() {
            pair.close();
        }
    }

    @Benchmark
    @OperationsPerInvocation(EmulatorBenchmark.BATCH)
    public int verbsAlone(Flushed state) {
        int completed = 0;
        while (completed < EmulatorBenchmark.BATCH) { // a completion that is not a flush fails the run
            completed += EmulatorBenchmark.postOnePerCompletion(state.pair, state.upTo[EmulatorBenchmark.BATCH - completed],
                    state.write, WcStatus.WR_FLUSH_ERR);
        }
        return completed;
    }

    /** Two ports on a deterministic fabric: B answers every frame with an ACK, A counts the ACKs. */
    @State(Scope.Thread)
    public static class TwoPorts {
        final Fabric fabric = Fabric.deterministic();
        byte[] request;
        int requestLength;
        byte[] ack;
        int ackLength;
        FabricPort portA;
        FabricPort portB;
        int acks;

        @Setup(Level.Trial)
        public void setUp(WriteFloorBenchmark floor) {
            requestLength = floor.begin().bth(Opcode.RC_RDMA_WRITE_ONLY, 0x11, 0).ackReq(true)
                    .reth(floor.target.address(), 0x1234, floor.size).finish(0);
            request = Arrays.copyOf(floor.frame, requestLength);
            ackLength = floor.writer.ethernet(floor.frame, 0, SOURCE_MAC, DESTINATION_MAC) // back to A
                    .ipv4(0, 0, true, 64, DESTINATION_IP, SOURCE_IP).udp(49152)
                    .bth(Opcode.RC_ACKNOWLEDGE, 0x12, 0).aeth(AethSyndrome.ack(31), 1).finish(0);
            ack = Arrays.copyOf(floor.frame, ackLength);
            portA = fabric.attach(new MacAddress(SOURCE_MAC), new Answering(() -> acks++));
            portB = fabric.attach(new MacAddress(DESTINATION_MAC), new Answering(() -> portB.transmitUnchanged(ack, 0, ackLength)));
        }

        @TearDown(Level.Trial)
        public void tearDown() {
            fabric.close();
        }
    }

    /** A receiver that takes frames without their ICRC, as an RNIC does, and runs {@code onFrame} for each. */
    private record Answering(Runnable onFrame) implements FrameReceiver {
        @Override
        public void onFrame(byte[] frame, int offset, int length, long nowNanos) {
            onFrame.run();
        }

        @Override
        public boolean takesFramesWithoutIcrc() {
            return true;
        }
    }

    @Benchmark
    @OperationsPerInvocation(EmulatorBenchmark.BATCH)
    public int fabricAlone(TwoPorts ports) {
        for (int i = 0; i < EmulatorBenchmark.BATCH; i++) {
            ports.portA.transmitUnchanged(ports.request, 0, ports.requestLength);
        }
        int before = ports.acks;
        ports.fabric.runUntilIdle();
        if (ports.acks - before != EmulatorBenchmark.BATCH) { // fail the run, not the numbers
            throw new IllegalStateException((ports.acks - before) + " ACKs for " + EmulatorBenchmark.BATCH + " WRITEs");
        }
        return ports.acks;
    }

    @Benchmark
    public MemorySegment memorySegmentCopy() {
        return target.copyFrom(source);
    }

    private int write(boolean payloadInFrame) {
        int packets = (size + MTU - 1) / MTU;
        int placed = 0;
        for (int i = 0; i < packets; i++) {
            Position position = Position.of(i, packets);
            Opcode opcode = Opcode.RC_RDMA_WRITE_ONLY.at(position);
            long offset = (long) i * MTU;
            int payload = (int) Math.min(MTU, size - offset);
            PacketWriter w = begin().bth(opcode, 0x11, psn++ & 0xFFFFFF).ackReq(position.endsMessage());
            if (i == 0) {
                w.reth(target.address(), 0x1234, size);
            }
            if (payloadInFrame) {
                MemorySegment.copy(source, ValueLayout.JAVA_BYTE, offset, frame, w.payloadOffset(), payload);
            }
            int length = w.finish(payload);
            if (!info.parseTrustedFrame(frame, 0, length)) {
                throw new IllegalStateException(info.dropDetail());
            }
            if (payloadInFrame) {
                MemorySegment.copy(frame, info.payloadOffset(), target, ValueLayout.JAVA_BYTE, offset, info.payloadLength());
            } else {
                MemorySegment.copy(source, offset, target, offset, payload);
            }
            placed += info.payloadLength() + info.psn();
        }
        int ack = begin().bth(Opcode.RC_ACKNOWLEDGE, 0x12, psn - 1 & 0xFFFFFF)
                .aeth(AethSyndrome.ack(31), 1).finish(0);
        if (!info.parseTrustedFrame(frame, 0, ack)) {
            throw new IllegalStateException(info.dropDetail());
        }
        return placed + info.aethMsn();
    }

    private PacketWriter begin() {
        return writer.ethernet(frame, 0, DESTINATION_MAC, SOURCE_MAC)
                .ipv4(0, 0, true, 64, SOURCE_IP, DESTINATION_IP).udp(49152);
    }
}
