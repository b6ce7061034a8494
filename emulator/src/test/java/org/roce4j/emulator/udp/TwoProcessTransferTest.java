package org.roce4j.emulator.udp;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.roce4j.emulator.fabric.FaultCounters;
import org.roce4j.emulator.fabric.Faults;
import org.roce4j.verbs.Context;
import org.roce4j.verbs.Cq;
import org.roce4j.verbs.Gid;
import org.roce4j.verbs.Mr;
import org.roce4j.verbs.Pd;
import org.roce4j.verbs.Qp;
import org.roce4j.verbs.QpCap;
import org.roce4j.verbs.QpInitAttr;
import org.roce4j.verbs.QpType;
import org.roce4j.verbs.SendWr;
import org.roce4j.verbs.WcStatus;
import org.roce4j.verbs.WorkCompletion;
import org.roce4j.verbs.WrOpcode;

/**
 * Issue 5: two roce4j processes on loopback, separate JVMs, move 1 GiB by RC RDMA WRITE and 1 GiB
 * by RC RDMA READ through real UDP sockets while both sides drop a seeded share of the frames they
 * send (netem-style loss, {@link UdpRnic#faults}), and the checksums of what arrived match.
 */
class TwoProcessTransferTest {
    private static final long BYTES = 1L << 30;
    private static final int CHUNK = 1 << 20;
    private static final int IN_FLIGHT = 8;
    private static final double LOSS = 0.002;
    private static final long SEED = 4791;

    @Test
    @Timeout(value = 10, unit = TimeUnit.MINUTES)
    @DisplayName("1 GiB of RC WRITEs and 1 GiB of RC READs between two JVMs over loopback UDP, 0.2% of frames dropped "
            + "each way: every byte arrives (CRC-32C of both regions compared) and the loss was really recovered")
    void oneGibibyteEachWayUnderLoss() throws Exception {
        Process peer = startPeer("127.0.0.41");
        try (UdpRnic rnic = UdpRnic.open("rxe-main", "127.0.0.42", TransferPeer.LINK); Arena arena = Arena.ofShared();
                Context context = rnic.device().open(); Pd pd = context.allocPd(); Cq cq = context.createCq(64)) {
            PrintStream toPeer = new PrintStream(peer.getOutputStream(), true, StandardCharsets.US_ASCII);
            BufferedReader fromPeer = new BufferedReader(new InputStreamReader(peer.getInputStream(), StandardCharsets.US_ASCII));
            String[] ready = expect(fromPeer, "READY");
            long sinkAddress = Long.parseLong(ready[4]);
            int sinkRkey = Integer.parseInt(ready[5]);
            long sourceAddress = Long.parseLong(ready[6]);
            int sourceRkey = Integer.parseInt(ready[7]);
            long peerSourceCrc = Long.parseLong(ready[8]);

            rnic.faults(Faults.seeded(SEED).drop(LOSS));
            MemorySegment written = arena.allocate(BYTES, 4096);
            MemorySegment read = arena.allocate(BYTES, 4096);
            TransferPeer.fill(written, SEED + 2);
            try (Mr writtenMr = pd.regMr(written, UdpSide.ALL_ACCESS); Mr readMr = pd.regMr(read, UdpSide.ALL_ACCESS);
                    Qp qp = pd.createQp(QpInitAttr.of(QpType.RC, cq, new QpCap(IN_FLIGHT, 1, 1, 1, 0)))) {
                int psn = 0x2000;
                TransferPeer.connect(qp, Integer.parseInt(ready[1]), Gid.parse(ready[2]), psn, Integer.parseInt(ready[3]));
                toPeer.printf("CONNECT %d %s %d%n", qp.qpNum(), context.queryGid(1, 1), psn);
                expect(fromPeer, "CONNECTED");

                transfer(rnic, qp, cq, WrOpcode.RDMA_WRITE, writtenMr, sinkAddress, sinkRkey);
                transfer(rnic, qp, cq, WrOpcode.RDMA_READ, readMr, sourceAddress, sourceRkey);

                toPeer.println("DONE");
                String[] sink = expect(fromPeer, "SINK");
                FaultCounters ours = rnic.faultCounters();
                System.out.printf("transfer: sent here %s, %s%npeer: %s%n", ours, rnic.rnic().counters(), String.join(" ", sink));
                assertThat(Long.parseLong(sink[1])).as("CRC-32C of the peer's sink vs what was written").isEqualTo(TransferPeer.crc32c(written));
                assertThat(TransferPeer.crc32c(read)).as("CRC-32C of what was read vs the peer's source").isEqualTo(peerSourceCrc);
                assertThat(ours.dropped()).as("frames this side dropped").isGreaterThan(100);
                assertThat(String.join(" ", sink)).as("the peer dropped frames too").containsPattern("dropped=[1-9]");
            }
        } finally {
            peer.destroy();
            peer.waitFor(10, TimeUnit.SECONDS);
        }
    }

    /** Posts 1 MiB requests over the whole region, {@link #IN_FLIGHT} at a time, all signalled; one reused WR. */
    private static void transfer(UdpRnic rnic, Qp qp, Cq cq, WrOpcode opcode, Mr local, long remoteBase, int rkey) {
        SendWr wr = new SendWr().opcode(opcode).signaled(true);
        WorkCompletion[] wcs = new WorkCompletion[IN_FLIGHT];
        long chunks = BYTES / CHUNK;
        long posted = 0;
        long completed = 0;
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(4);
        while (completed < chunks) {
            while (posted < chunks && posted - completed < IN_FLIGHT) {
                wr.wrId(posted).remote(remoteBase + posted * CHUNK, rkey);
                wr.sgList().clear();
                wr.sge(local, posted * CHUNK, CHUNK);
                qp.postSend(wr);
                posted++;
            }
            int n = cq.poll(wcs);
            for (int i = 0; i < n; i++) {
                WorkCompletion wc = wcs[i];
                assertThat(wc.status()).as(() -> wc.opcode() + " of chunk " + wc.wrId() + "; here: " + rnic.faultCounters()
                        + " " + rnic.rnic().counters() + " " + rnic.linkCounters()).isEqualTo(WcStatus.SUCCESS);
                completed++;
            }
            if (n == 0) {
                assertThat(System.nanoTime()).as("4 minutes for 1 GiB").isLessThan(deadline);
                Thread.onSpinWait();
            }
        }
    }

    private static Process startPeer(String address) throws IOException {
        String java = ProcessHandle.current().info().command().orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        List<String> command = new ArrayList<>(List.of(java, "-Xmx256m", "--enable-native-access=ALL-UNNAMED",
                "-cp", System.getProperty("java.class.path"), TransferPeer.class.getName(),
                address, Long.toString(BYTES), Long.toString(SEED), Double.toString(LOSS)));
        return new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
    }

    private static String[] expect(BufferedReader in, String word) throws IOException {
        String line = in.readLine();
        assertThat(line).as("the peer's next line").isNotNull().matches(word + "( .*)?");
        return line.split(" ");
    }
}
