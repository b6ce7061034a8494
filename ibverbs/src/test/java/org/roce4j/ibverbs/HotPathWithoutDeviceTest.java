package org.roce4j.ibverbs;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.Arena;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.management.ManagementFactory;
import java.util.List;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.roce4j.verbs.QpCap;
import org.roce4j.verbs.QpInitAttr;
import org.roce4j.verbs.QpType;
import org.roce4j.verbs.RecvWr;
import org.roce4j.verbs.SendWr;
import org.roce4j.verbs.WorkCompletion;

/**
 * The Java side of the data path, on any machine: a context whose ops table points every data-path
 * verb at libc's {@code sched_yield} (it ignores its arguments and returns 0: "posted", "no
 * completion"), so that encoding work requests into the native arrays, the downcalls and an empty
 * poll can be measured without a device. {@code HotPathAllocationTest} repeats it on rxe0.
 */
class HotPathWithoutDeviceTest {
    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    private final Arena arena = Arena.ofShared();

    @AfterEach
    void free() {
        arena.close();
    }

    @Test
    void postingAndPollingAllocateNothingOnceWarm() {
        MemorySegment returnsZero = Linker.nativeLinker().defaultLookup().findOrThrow("sched_yield");
        MemorySegment context = arena.allocate(Layouts.IBV_CONTEXT);
        for (String op : List.of("post_send", "post_recv", "post_srq_recv", "poll_cq", "req_notify_cq")) {
            context.set(ADDRESS, Layouts.offset(Layouts.IBV_CONTEXT, "ops." + op), returnsZero);
        }
        MemorySegment cqStruct = arena.allocate(Layouts.IBV_CQ);
        cqStruct.set(JAVA_INT, Layouts.offset(Layouts.IBV_CQ, "cqe"), 64);
        MemorySegment qpStruct = arena.allocate(Layouts.IBV_QP);
        qpStruct.set(JAVA_INT, Layouts.offset(Layouts.IBV_QP, "qp_num"), 17);

        IbvContext ctx = new IbvContext(null, null, context);
        IbvPd pd = new IbvPd(ctx, arena.allocate(Layouts.IBV_PD));
        IbvCq cq = new IbvCq(ctx, cqStruct, null);
        IbvQp qp = new IbvQp(pd, qpStruct, QpInitAttr.of(QpType.RC, cq, QpCap.of(16, 16)), cq, cq, null, ignored -> { });

        SendWr write = new SendWr().wrId(1).opcode(org.roce4j.verbs.WrOpcode.RDMA_WRITE).sge(0x1000, 64, 5)
                .remote(0x2000, 6).signaled(true);
        SendWr atomic = SendWr.fetchAndAdd(2, new FakeMr(), 0, 0x3000, 7, 1);
        RecvWr recv = new RecvWr().wrId(3).sge(0x1000, 64, 5).sge(0x2000, 64, 5);
        List<SendWr> chain = List.of(write, atomic, write);
        WorkCompletion[] wcs = new WorkCompletion[16];
        long bytes = 0;
        for (int round = 0; round < 200_000; round++) {
            long before = THREADS.getCurrentThreadAllocatedBytes();
            qp.postRecv(recv);
            qp.postSend(write);
            qp.postSend(chain);
            if (cq.poll(wcs) != 0) {   // not an AssertJ call: that would allocate
                throw new AssertionError("sched_yield polled a completion");
            }
            if (round >= 100_000) {   // the first half warms the JIT up
                bytes += THREADS.getCurrentThreadAllocatedBytes() - before;
            }
        }
        assertThat(bytes).as("bytes allocated by 100,000 rounds of post_recv, post_send, a chain of 3, empty poll")
                .isLessThan(100_000);
        System.out.println("100,000 rounds of posts and an empty poll allocated " + bytes + " bytes");
    }

    /** Just enough of an MR for SendWr's factories (address and lkey). */
    private static final class FakeMr implements org.roce4j.verbs.Mr {
        @Override public org.roce4j.verbs.Pd pd() { return null; }
        @Override public int lkey() { return 5; }
        @Override public int rkey() { return 6; }
        @Override public long address() { return 0x1000; }
        @Override public long length() { return 4096; }
        @Override public MemorySegment segment() { return MemorySegment.NULL; }
        @Override public java.util.Set<org.roce4j.verbs.AccessFlag> access() { return java.util.Set.of(); }
        @Override public void close() { }
    }
}
