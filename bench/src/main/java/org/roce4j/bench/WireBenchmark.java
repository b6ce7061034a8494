package org.roce4j.bench;

import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import java.util.zip.CRC32;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.roce4j.wire.DecodeResult;
import org.roce4j.wire.FrameEncoder;
import org.roce4j.wire.Opcode;
import org.roce4j.wire.PacketInfo;
import org.roce4j.wire.RoceDecoder;
import org.roce4j.wire.RoceFrame;

/**
 * The wire hot path, per packet: encode with ICRC, parse and verify through the {@link PacketInfo}
 * flyweight, decode to records, and plain {@link CRC32} over the same bytes as the ceiling.
 *
 * <p>The frame is {@link TestFrames#rcWriteOnly} (RC RDMA WRITE Only with RETH, IPv4), so
 * {@code 74 + payloadSize} bytes. The ICRC covers 8 pseudo-LRH bytes plus the
 * {@code 64 + payloadSize} frame bytes from the IP header up to the ICRC; {@link #crc32Baseline}
 * runs CRC32 over exactly those {@code 64 + payloadSize} frame bytes (no pseudo-LRH, no masking),
 * the raw-throughput ceiling for {@link #decodeAndVerify}. DESIGN.md §3 rule 9: the encode and
 * flyweight paths must allocate nothing per packet once warm; run with {@code -prof gc} and read
 * gc.alloc.rate.norm.
 *
 * <p>Each benchmark returns a value so that the JIT cannot drop the work.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class WireBenchmark {
    /** RoCEv2 payload bytes: a small message and a full 4096-byte path MTU. */
    @Param({"64", "4096"})
    public int payloadSize;

    private final FrameEncoder encoder = new FrameEncoder();
    private final PacketInfo info = new PacketInfo();
    private final RoceDecoder decoder = new RoceDecoder();
    private final CRC32 crc32 = new CRC32();

    private RoceFrame frame;
    private byte[] wire;
    private byte[] encodeBuffer;
    private int ipOffset;
    private int icrcOffset;

    @Setup
    public void setUp() {
        frame = TestFrames.rcWriteOnly(payloadSize);
        wire = encoder.encode(frame);
        encodeBuffer = new byte[wire.length];

        // Fail the run, not the numbers, if the prebuilt frame is not what we think it is.
        if (!info.parseFrame(wire, 0, wire.length)) {
            throw new IllegalStateException("prebuilt frame rejected: " + info.dropDetail());
        }
        if (info.opcode() != Opcode.RC_RDMA_WRITE_ONLY || info.payloadLength() != payloadSize
                || wire.length != TestFrames.OVERHEAD + payloadSize) {
            throw new IllegalStateException("unexpected frame layout");
        }
        ipOffset = info.ipOffset();
        icrcOffset = info.icrcOffset();
        if (!(decoder.decode(wire) instanceof DecodeResult.Decoded)) {
            throw new IllegalStateException("record decoder rejected the frame");
        }
        encoder.encodeInto(frame, encodeBuffer, 0);
        if (!Arrays.equals(encodeBuffer, wire)) {
            throw new IllegalStateException("encodeInto differs from encode");
        }
    }

    /** FrameEncoder.encodeInto a reused buffer: headers, lengths, IPv4 checksum, payload copy, ICRC. */
    @Benchmark
    public int encodeWithIcrc() {
        return encoder.encodeInto(frame, encodeBuffer, 0);
    }

    /** The receive hot path: parse every layer, verify the ICRC, read opcode and PSN. */
    @Benchmark
    public long decodeAndVerify() {
        if (!info.parseFrame(wire, 0, wire.length)) {
            return -1;
        }
        return (long) info.opcode().code() << 24 | info.psn();
    }

    /** The record path: the same parse, then RoceFrame records and payload copies (allocates). */
    @Benchmark
    public DecodeResult decodeToRecords() {
        return decoder.decode(wire);
    }

    /** java.util.zip.CRC32 over the frame bytes the ICRC covers (IP header up to the ICRC). */
    @Benchmark
    public long crc32Baseline() {
        crc32.reset();
        crc32.update(wire, ipOffset, icrcOffset - ipOffset);
        return crc32.getValue();
    }
}
