package org.roce4j.bench;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
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
import org.roce4j.wire.IcrcCalculator;
import org.roce4j.wire.PacketInfo;

/**
 * Where {@link IcrcCalculator#compute} spends its time beyond the CRC32 itself. Not part of the
 * default {@code bench/run}; run it with {@code bench/run IcrcBreakdown}.
 *
 * <p>compute() copies the 8 + 40 masked bytes (pseudo-LRH, IPv4, UDP, BTH) into a scratch array
 * and hands that to CRC32, then the rest of the packet straight from the frame. The two
 * {@code crc32Runs*} benchmarks make the same two CRC32 calls over the same lengths; their values
 * are not ICRCs, only their timings matter:
 * <ul>
 *   <li>{@link #crc32RunsFromFrame}: both runs read bytes that were written long ago — the floor
 *       for compute() as it is structured;</li>
 *   <li>{@link #crc32RunsAfterOneStore}: one 8-byte store into the scratch just before CRC32
 *       reads it. The difference to the floor is the cost of reading freshly stored bytes with the
 *       CRC32 intrinsic's wide loads (a store-to-load forwarding stall), which compute() pays on
 *       every packet.</li>
 * </ul>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class IcrcBreakdownBenchmark {
    private static final VarHandle LONG = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);
    private static final int MASKED = 8 + 20 + 8 + 12; // pseudo-LRH, IPv4, UDP, BTH

    @Param({"64", "4096"})
    public int payloadSize;

    private final IcrcCalculator icrc = new IcrcCalculator();
    private final CRC32 crc32 = new CRC32();
    private final byte[] scratch = new byte[MASKED];
    private byte[] wire;
    private int ipOffset;
    private int icrcOffset;

    @Setup
    public void setUp() {
        wire = TestFrames.rcWriteOnly(payloadSize).encode();
        PacketInfo info = new PacketInfo();
        if (!info.parseFrame(wire, 0, wire.length)) {
            throw new IllegalStateException("prebuilt frame rejected: " + info.dropDetail());
        }
        ipOffset = info.ipOffset();
        icrcOffset = info.icrcOffset();
        System.arraycopy(wire, ipOffset, scratch, 8, MASKED - 8);
    }

    /** The real thing: masked copy into scratch, CRC32 over it, CRC32 over the rest. */
    @Benchmark
    public int icrcCompute() {
        return icrc.compute(wire, ipOffset, icrcOffset);
    }

    /** The same two CRC32 runs, both from bytes written long ago. */
    @Benchmark
    public long crc32RunsFromFrame() {
        int rest = ipOffset + MASKED - 8;
        crc32.reset();
        crc32.update(wire, ipOffset - 8, MASKED);
        crc32.update(wire, rest, icrcOffset - rest);
        return crc32.getValue();
    }

    /** The same two CRC32 runs, the first over a scratch array that just took one 8-byte store. */
    @Benchmark
    public long crc32RunsAfterOneStore() {
        int rest = ipOffset + MASKED - 8;
        LONG.set(scratch, 16, (long) LONG.get(wire, ipOffset + 8) | 0xFF00_FFFF_0000_0000L);
        crc32.reset();
        crc32.update(scratch, 0, MASKED);
        crc32.update(wire, rest, icrcOffset - rest);
        return crc32.getValue();
    }
}
