package org.roce4j.ibverbs;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.management.ManagementFactory;
import java.util.List;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.roce4j.verbs.RecvWr;
import org.roce4j.verbs.SendWr;
import org.roce4j.verbs.WcStatus;
import org.roce4j.verbs.WorkCompletion;

/**
 * Posting reused work requests and polling allocate nothing once warm (DESIGN.md §3.9): the native
 * ibv_send_wr / ibv_recv_wr / ibv_sge / ibv_wc arrays are made once per queue. What a poll returns
 * is one {@link WorkCompletion} record per completion, and nothing else.
 */
@Tag("device")
class HotPathAllocationTest {
    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    private final RxeSmokeTest pair = new RxeSmokeTest();

    @BeforeEach
    void connect() {
        pair.connect();
    }

    @AfterEach
    void close() {
        pair.close();
    }

    @Test
    void postingReusedWorkRequestsAllocatesNothing() {
        SendWr write = SendWr.rdmaWrite(1, pair.mrA(), 0, 64, pair.mrB().address(), pair.mrB().rkey());
        SendWr send = SendWr.send(2, pair.mrA(), 0, 64);
        RecvWr recv = RecvWr.of(3, pair.mrB(), 0, 4096);
        List<SendWr> chain = List.of(write, write, send);
        WorkCompletion[] wcs = new WorkCompletion[16];
        long postBytes = 0;
        long pollBytes = 0;
        int completions = 0;
        for (int round = 0; round < 3000; round++) {
            boolean measured = round >= 1000;   // the first 1000 rounds warm up the JIT
            long before = THREADS.getCurrentThreadAllocatedBytes();
            pair.b().postRecv(recv);
            pair.a().postSend(write);
            pair.a().postSend(chain);
            long between = THREADS.getCurrentThreadAllocatedBytes();
            int got = 0;
            while (got < 5) {   // 3 WRITEs, the SEND and its receive
                int n = pair.cq().poll(wcs);
                for (int i = 0; i < n; i++) {
                    if (wcs[i].status() != WcStatus.SUCCESS) {   // not AssertJ: that would allocate
                        throw new AssertionError("completion failed: " + wcs[i]);
                    }
                }
                got += n;
            }
            long after = THREADS.getCurrentThreadAllocatedBytes();
            if (measured) {
                postBytes += between - before;
                pollBytes += after - between;
                completions += got;
            }
        }
        System.out.printf("posts: %d bytes in 2000 rounds; polls: %d bytes for %d completions%n",
                postBytes, pollBytes, completions);
        // An object is at least 16 bytes: under 1 byte per round means no round allocated anything but
        // a one-off (the JIT's first compiled call can leave a few bytes; seen: 48 B in 2000 rounds).
        assertThat(postBytes).as("bytes allocated by 2000 rounds of post_recv + post_send + a chain of 3")
                .isLessThan(2000);
        assertThat(pollBytes / completions).as("bytes allocated per completion polled (one record)").isLessThanOrEqualTo(72);
    }

}
