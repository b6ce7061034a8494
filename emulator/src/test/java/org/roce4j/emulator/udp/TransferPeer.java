package org.roce4j.emulator.udp;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;
import java.util.zip.CRC32C;

import org.roce4j.emulator.fabric.Faults;
import org.roce4j.verbs.Context;
import org.roce4j.verbs.Cq;
import org.roce4j.verbs.Gid;
import org.roce4j.verbs.Mr;
import org.roce4j.verbs.Mtu;
import org.roce4j.verbs.Pd;
import org.roce4j.verbs.Qp;
import org.roce4j.verbs.QpCap;
import org.roce4j.verbs.QpInitAttr;
import org.roce4j.verbs.QpType;

/**
 * The passive side of {@link TwoProcessTransferTest}, run in its own JVM: a UDP device with two
 * registered regions — a sink the other process RDMA-WRITEs into, and a source it RDMA-READs from,
 * filled with seeded bytes — and an RC QP. It talks to its parent over stdin/stdout, one line each:
 *
 * <pre>
 *   → READY qpn gid psn sinkAddress sinkRkey sourceAddress sourceRkey sourceCrc32c
 *   ← CONNECT qpn gid psn
 *   → CONNECTED
 *   ← DONE
 *   → SINK crc32c counters…
 * </pre>
 *
 * Arguments: ADDRESS BYTES SEED LOSS (the drop probability of its own sent frames, seeded).
 */
public final class TransferPeer {
    static final Mtu MTU = Mtu.MTU_4096;
    static final UdpLinkConfig LINK = UdpLinkConfig.DEFAULT.withActiveMtu(MTU).withPacketsPerSecond(200_000);

    private TransferPeer() {
    }

    public static void main(String[] args) throws IOException {
        String address = args[0];
        long bytes = Long.parseLong(args[1]);
        long seed = Long.parseLong(args[2]);
        double loss = Double.parseDouble(args[3]);
        PrintStream out = new PrintStream(System.out, true, StandardCharsets.US_ASCII);
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.US_ASCII));
        try (UdpRnic rnic = UdpRnic.open("rxe-peer", address, LINK); Arena arena = Arena.ofShared();
                Context context = rnic.device().open(); Pd pd = context.allocPd(); Cq cq = context.createCq(16)) {
            rnic.faults(Faults.seeded(seed + 1).drop(loss));
            Runtime.getRuntime().addShutdownHook(new Thread(() -> System.err.printf("peer at exit: %s %s %s%n",
                    rnic.faultCounters(), rnic.rnic().counters(), rnic.linkCounters())));
            MemorySegment sink = arena.allocate(bytes, 4096);
            MemorySegment source = arena.allocate(bytes, 4096);
            fill(source, seed);
            try (Mr sinkMr = pd.regMr(sink, UdpSide.ALL_ACCESS); Mr sourceMr = pd.regMr(source, UdpSide.ALL_ACCESS);
                    Qp qp = pd.createQp(QpInitAttr.of(QpType.RC, cq, new QpCap(16, 16, 1, 1, 0)))) {
                Gid gid = context.queryGid(1, 1);
                int psn = 0x1000;
                out.printf("READY %d %s %d %d %d %d %d %d%n", qp.qpNum(), gid, psn, sink.address(), sinkMr.rkey(),
                        source.address(), sourceMr.rkey(), crc32c(source));
                String[] connect = in.readLine().split(" ");
                connect(qp, Integer.parseInt(connect[1]), Gid.parse(connect[2]), psn, Integer.parseInt(connect[3]));
                out.println("CONNECTED");
                String done = in.readLine();
                if (!"DONE".equals(done)) {
                    throw new IllegalStateException("expected DONE, got " + done);
                }
                out.printf("SINK %d %s %s%n", crc32c(sink), rnic.faultCounters(), rnic.rnic().counters());
            }
        }
    }

    /**
     * RESET → INIT → RTR → RTS as ibv_rc_pingpong does, with MTU 4096 and local ACK timeout 17
     * (4.096 µs × 2^17 ≈ 0.54 s) instead of its 14 (67 ms). Losses here are recovered by sequence
     * NAKs and by implicit NAKs (a READ response behind a gap) at once; the timer only covers a lost
     * last packet. With 67 ms, two JVMs on a loaded 2-core machine (a descheduled peer, a GC)
     * sometimes let the timer expire while the answer was on its way, and every such expiry costs a
     * retry without progress: seven in a row ended a run in RETRY_EXC_ERR about once in five.
     */
    static void connect(Qp qp, int remoteQpn, Gid remoteGid, int localPsn, int remotePsn) {
        UdpSide.connect(qp, remoteQpn, remoteGid, localPsn, remotePsn, MTU, rts -> rts.timeout(17));
    }

    /** Seeded bytes: one random MiB repeated, each 4 KiB page stamped with its offset so pages differ. */
    static void fill(MemorySegment memory, long seed) {
        byte[] block = new byte[1 << 20];
        new SplittableRandom(seed).nextBytes(block);
        MemorySegment pattern = MemorySegment.ofArray(block);
        for (long at = 0; at < memory.byteSize(); at += block.length) {
            MemorySegment.copy(pattern, 0, memory, at, Math.min(block.length, memory.byteSize() - at));
        }
        for (long page = 0; page + 8 <= memory.byteSize(); page += 4096) {
            memory.set(ValueLayout.JAVA_LONG_UNALIGNED, page, page ^ seed);
        }
    }

    static long crc32c(MemorySegment memory) {
        CRC32C crc = new CRC32C();
        for (long at = 0; at < memory.byteSize(); at += 1 << 30) {
            crc.update(memory.asSlice(at, Math.min(1L << 30, memory.byteSize() - at)).asByteBuffer());
        }
        return crc.getValue();
    }
}
