package org.roce4j.emulator;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.util.Arrays;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.roce4j.verbs.Mtu;
import org.roce4j.verbs.Qp;
import org.roce4j.verbs.QpType;
import org.roce4j.verbs.RecvWr;
import org.roce4j.verbs.SendWr;
import org.roce4j.verbs.WrOpcode;

/**
 * Issue 17: while nothing but RNICs reads the fabric's frames, a requester hands a message's MIDDLE packets to
 * the fabric as one train — headers built and routed once — and the fabric delivers them one step each, as the
 * frames it would have been handed one by one. A tap turns trains off (it reads every frame), so a run with a tap
 * and one without must be the same run: the same steps, the same virtual time, every counter and completion
 * the same, every byte placed the same.
 */
class PacketTrainTest {

    @Test
    void aRunWithoutATapIsTheRunWithOne(@TempDir Path dir) {
        ObservedRun withTap = run(dir.resolve("trains-off.pcap"));
        ObservedRun withoutTap = run(null);

        assertThat(withoutTap.steps()).as("fabric steps").isEqualTo(withTap.steps());
        assertThat(withoutTap.endNanos()).as("virtual time").isEqualTo(withTap.endNanos());
        assertThat(withoutTap.countersA()).isEqualTo(withTap.countersA());
        assertThat(withoutTap.countersB()).isEqualTo(withTap.countersB());
        assertThat(withoutTap.fabric()).isEqualTo(withTap.fabric());
        assertThat(withoutTap.completions()).isEqualTo(withTap.completions());
        assertThat(withoutTap.states()).isEqualTo(withTap.states());
        assertThat(withoutTap.target()).isEqualTo(withTap.target());
        // Not a run where nothing happened: 3 + 512 + 4 + 20 + 16 + 4 request packets; an ACK every 64 packets and
        // per RC message.
        assertThat(withoutTap.countersA().get(RnicCounter.FRAMES_SENT)).isEqualTo(559);
        assertThat(withoutTap.countersB().get(RnicCounter.ACKS_SENT)).isGreaterThanOrEqualTo(8 + 3);
        assertThat(withoutTap.completions()).hasSize(8);
    }

    /**
     * Two RC QP pairs and a UC pair at once: a 512 KiB WRITE (512 packets of 1 KiB: the window of 128 PSNs and an
     * AckReq every 64 packets cut its trains, its LAST ends one), a 4 KiB WRITE from two SGEs (its middle packets
     * cross from one to the other), a 20,000-byte SEND on the second RC pair (a short LAST), a 64 KiB UC WRITE with
     * immediate (its LAST carries it) and a plain 16 KiB one.
     */
    private static ObservedRun run(Path tap) {
        try (TwoNodes nodes = ObservedRun.nodes(tap)) {
            for (long i = 0; i < nodes.a.memory.byteSize(); i++) {
                nodes.a.memory.set(ValueLayout.JAVA_BYTE, i, (byte) (i * 7 + (i >>> 10)));
            }
            Qp[] rc = nodes.connectedPair(QpType.RC, Mtu.MTU_1024);
            Qp[] rc2 = nodes.connectedPair(QpType.RC, Mtu.MTU_1024);
            Qp[] uc = nodes.connectedPair(QpType.UC, Mtu.MTU_4096);
            long b = nodes.b.mr.address();
            int rkey = nodes.b.mr.rkey();
            // 3 packets first: the long WRITE's trains then start off the turn's 16, and one would run past the 64th
            // packet's AckReq if it were not cut there.
            rc[0].postSend(SendWr.rdmaWrite(6, nodes.a.mr, 900_000, 3 * 1024, b + 900_000, rkey));
            rc[0].postSend(SendWr.rdmaWrite(1, nodes.a.mr, 0, 512 * 1024, b, rkey));
            rc[0].postSend(new SendWr().wrId(2).opcode(WrOpcode.RDMA_WRITE).signaled(true)
                    .sge(nodes.a.mr, 600_000, 1_500).sge(nodes.a.mr, 700_000, 2_596).remote(b + 600_000, rkey));
            rc2[1].postRecv(new RecvWr().wrId(3).sge(nodes.b.mr, 620_000, 20_000));
            rc2[0].postSend(new SendWr().wrId(3).opcode(WrOpcode.SEND).signaled(true).sge(nodes.a.mr, 800_000, 20_000));
            uc[1].postRecv(new RecvWr().wrId(4));
            uc[0].postSend(new SendWr().wrId(4).opcode(WrOpcode.RDMA_WRITE_WITH_IMM).immData(0x1234).signaled(true)
                    .sge(nodes.a.mr, 0, 64 * 1024).remote(b + 700_000, rkey));
            uc[0].postSend(SendWr.rdmaWrite(5, nodes.a.mr, 100_000, 16 * 1024, b + 800_000, rkey));
            return ObservedRun.finish(nodes, 0, nodes.b.memory, rc[0], rc[1], rc2[0], rc2[1], uc[0], uc[1]);
        }
    }

    @Test
    void everyByteOfATrainIsPlaced() {
        ObservedRun run = run(null);
        byte[] expected = new byte[512 * 1024];
        for (int i = 0; i < expected.length; i++) {
            expected[i] = (byte) (i * 7 + (i >>> 10));
        }
        assertThat(Arrays.copyOf(run.target(), 512 * 1024)).isEqualTo(expected);
        assertThat(run.completions()).allSatisfy(text -> assertThat(text).contains("SUCCESS"));
    }
}
