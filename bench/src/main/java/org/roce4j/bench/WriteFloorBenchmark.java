package org.roce4j.bench;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.TimeUnit;

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
import org.roce4j.wire.AethSyndrome;
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
