package org.roce4j.emulator;

import java.lang.management.ManagementFactory;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.roce4j.verbs.Mtu;
import org.roce4j.verbs.Qp;
import org.roce4j.verbs.QpType;
import org.roce4j.verbs.RecvWr;
import org.roce4j.verbs.SendWr;
import org.roce4j.verbs.WorkCompletion;
import org.roce4j.verbs.WrOpcode;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

/**
 * DESIGN.md §3.9 and the "a post path that allocates nothing per work request when reused":
 * counts the bytes the test thread allocates (no timing; speed is measured in bench/).
 */
class WorkRequestAllocationTest {
    private static final int BATCH = 8;
    /** A WorkCompletion record on a 64-bit JVM with compressed oops: 12-byte header + 56 bytes of fields, padded. */
    private static final long WORK_COMPLETION_BYTES = 72;

    @Test
    @DisplayName("posting reused SendWr and RecvWr objects allocates nothing once warm")
    void reusedWorkRequestsPostWithoutAllocating() {
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        assumeThat(threads.isThreadAllocatedMemorySupported()).isTrue();
        threads.setThreadAllocatedMemoryEnabled(true);
        long thread = Thread.currentThread().threadId();
        try (TwoNodes nodes = new TwoNodes()) {
            Qp[] pair = nodes.connectedPair(QpType.RC, Mtu.MTU_1024);
            SendWr send = new SendWr().wrId(1).opcode(WrOpcode.SEND).signaled(true).sge(nodes.a.mr, 0, 64);
            RecvWr receive = RecvWr.of(2, nodes.b.mr, 4096, 64);
            WorkCompletion[] completions = new WorkCompletion[2 * BATCH];
            long postBytes = 0;
            long datapathBytes = 0;
            int rounds = 0;
            for (int round = 0; round < 600; round++) {
                long start = threads.getThreadAllocatedBytes(thread);
                for (int i = 0; i < BATCH; i++) {
                    pair[1].postRecv(receive);
                    pair[0].postSend(send);
                }
                long posted = threads.getThreadAllocatedBytes(thread);
                nodes.fabric.runUntilIdle();
                long ran = threads.getThreadAllocatedBytes(thread);
                assertThat(drain(nodes.a.cq, completions) + drain(nodes.b.cq, completions)).isEqualTo(2 * BATCH);
                if (round >= 500) { // warm: the JIT has compiled the paths
                    postBytes += posted - start;
                    datapathBytes += ran - posted;
                    rounds++;
                }
            }
            int workRequests = rounds * BATCH * 2;
            assertThat(postBytes).as("bytes allocated posting %d work requests", workRequests).isLessThan(1_024);
            // Frames through requester, responder and completer allocate nothing per packet; what
            // remains per message are its two WorkCompletion records (a send and a receive).
            long perMessage = datapathBytes / (rounds * BATCH);
            assertThat(perMessage).as("bytes per 64-byte SEND through the datapath, completions included")
                    .isLessThanOrEqualTo(2 * WORK_COMPLETION_BYTES);
        }
    }

    @Test
    @DisplayName("posting through the ibv_wr_* builder of an extended QP allocates nothing once warm")
    void builderPostsWithoutAllocating() {
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        assumeThat(threads.isThreadAllocatedMemorySupported()).isTrue();
        threads.setThreadAllocatedMemoryEnabled(true);
        long thread = Thread.currentThread().threadId();
        try (TwoNodes nodes = new TwoNodes()) {
            org.roce4j.verbs.QpEx qp = AtomicWriteTest.connectedEx(nodes);
            int signaled = org.roce4j.verbs.SendFlag.SIGNALED.bit();
            long remote = nodes.b.mr.address();
            WorkCompletion[] completions = new WorkCompletion[2 * BATCH];
            long postBytes = 0;
            int rounds = 0;
            for (int round = 0; round < 600; round++) {
                long start = threads.getThreadAllocatedBytes(thread);
                qp.wrStart();
                qp.wrFlags(signaled);
                for (int i = 0; i < BATCH; i++) {
                    qp.wrId(i);
                    qp.wrRdmaWrite(nodes.b.mr.rkey(), remote + 64L * i);
                    qp.wrSetSge(nodes.a.mr.lkey(), nodes.a.mr.address(), 64);
                }
                int errno = qp.wrComplete();
                long posted = threads.getThreadAllocatedBytes(thread);
                assertThat(errno).isZero();
                nodes.fabric.runUntilIdle();
                assertThat(drain(nodes.a.cq, completions)).isEqualTo(BATCH);
                if (round >= 500) {
                    postBytes += posted - start;
                    rounds++;
                }
            }
            assertThat(postBytes).as("bytes allocated building and posting %d work requests", rounds * BATCH)
                    .isLessThan(1_024);
        }
    }

    private static int drain(org.roce4j.verbs.Cq cq, WorkCompletion[] into) {
        int total = 0;
        int n;
        while ((n = cq.poll(into)) > 0) {
            for (int i = 0; i < n; i++) {
                if (!into[i].isSuccess()) {
                    throw new AssertionError("completion failed: " + into[i]);
                }
            }
            total += n;
        }
        return total;
    }
}
