package org.roce4j.emulator;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.FutureTask;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.roce4j.emulator.fabric.Fabric;
import org.roce4j.verbs.BadWorkRequestException;
import org.roce4j.verbs.Errno;
import org.roce4j.verbs.Mtu;
import org.roce4j.verbs.Qp;
import org.roce4j.verbs.QpAttr;
import org.roce4j.verbs.QpState;
import org.roce4j.verbs.QpType;
import org.roce4j.verbs.SendWr;
import org.roce4j.verbs.WcStatus;
import org.roce4j.verbs.WorkCompletion;

/**
 * On a threaded fabric {@code ibv_post_send} takes the send queue's own lock and rings the RNIC's doorbell, as
 * rxe's provider writes its mmapped queue and rings the kernel: posts from many threads, and posts racing the QP's
 * move to the error state, each still end in exactly one completion, in the order each thread posted.
 */
@Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD) // a spinning poll fails, not hangs
class PostWithoutFabricLockTest {

    private static final int THREADS = 4;
    /** Completions allowed to wait in A's CQ (256 deep): posters wait for a permit, the poller gives them back. */
    private static final int IN_FLIGHT = 200;

    @Test
    @DisplayName("a post returns while another thread holds the fabric lock, and its WRITE completes once the lock is free")
    void postDoesNotWaitForTheFabricLock() throws Exception {
        try (TwoNodes nodes = new TwoNodes(Fabric.threaded())) {
            Qp[] pair = nodes.connectedPair(QpType.RC, Mtu.MTU_1024);
            try (FabricLockHeld _ = FabricLockHeld.by(nodes.fabric)) {
                FutureTask<Void> post = new FutureTask<>(() -> {
                    pair[0].postSend(SendWr.rdmaWrite(1, nodes.a.mr, 0, 8, nodes.b.mr.address(), nodes.b.mr.rkey()));
                    return null;
                });
                Thread.ofPlatform().start(post);
                post.get(10, TimeUnit.SECONDS);
                assertThat(nodes.a.cq.poll(1)).as("nothing is sent while the lock is held").isEmpty();
            }
            assertThat(pollUntil(nodes, 1)).extracting(WorkCompletion::status).containsExactly(WcStatus.SUCCESS);
        }
    }

    @Test
    @DisplayName("four threads post 3,000 WRITEs each to one QP: every WR completes once, SUCCESS, in its thread's order")
    void threadsPostingToOneQp() throws Exception {
        try (TwoNodes nodes = new TwoNodes(Fabric.threaded())) {
            Qp requester = nodes.rcPair(Mtu.MTU_1024, rtr -> { }, rts -> { }, rtr -> { }, rts -> { })[0];
            List<WorkCompletion> completions = postFromThreads(nodes, requester, 3_000, seen -> { });

            assertEachOnceInThreadOrder(completions, 3_000);
            assertThat(completions).extracting(WorkCompletion::status).containsOnly(WcStatus.SUCCESS);
        }
    }

    @Test
    @DisplayName("posts racing a move to ERR: every WR completes once, SUCCESS or WR_FLUSH_ERR, and no SUCCESS after a flush")
    void postsRacingTheErrorState() throws Exception {
        try (TwoNodes nodes = new TwoNodes(Fabric.threaded())) {
            Qp requester = nodes.rcPair(Mtu.MTU_1024, rtr -> { }, rts -> { }, rtr -> { }, rts -> { })[0];
            List<WorkCompletion> completions = postFromThreads(nodes, requester, 2_000, seen -> {
                if (seen == 1_000) {
                    requester.modify(new QpAttr().qpState(QpState.ERR)); // IBTA 10.3.1: posts from here are flushed
                }
            });

            assertEachOnceInThreadOrder(completions, 2_000);
            assertThat(completions).extracting(WorkCompletion::status).contains(WcStatus.WR_FLUSH_ERR)
                    .containsOnly(WcStatus.SUCCESS, WcStatus.WR_FLUSH_ERR);
            for (int thread = 0; thread < THREADS; thread++) {
                boolean flushed = false;
                for (WorkCompletion wc : completions) {
                    if (wc.wrId() / 1_000_000 != thread) {
                        continue;
                    }
                    assertThat(flushed && wc.status() == WcStatus.SUCCESS)
                            .as("thread %d's WR %d succeeded after one of its WRs was flushed", thread, wc.wrId())
                            .isFalse();
                    flushed |= wc.status() == WcStatus.WR_FLUSH_ERR;
                }
            }
        }
    }

    @Test
    @DisplayName("an application that counts its completions, as perftest does with tx_depth and CQ moderation, never finds the send queue full")
    void aPolledCompletionPromisesItsRoom() {
        try (TwoNodes nodes = new TwoNodes(Fabric.threaded())) {
            Qp requester = nodes.rcPair(Mtu.MTU_1024, rtr -> { }, rts -> { }, rtr -> { }, rts -> { })[0];
            int depth = 64; // rcPair's queues
            int moderation = 8; // every 8th WR signaled: its completion frees it and the 7 before it
            long posted = 0;
            long completed = 0;
            WorkCompletion[] batch = new WorkCompletion[16];
            while (completed < 100_000) {
                while (posted - completed < depth) {
                    boolean signaled = (posted + 1) % moderation == 0;
                    requester.postSend(SendWr.rdmaWrite(posted, nodes.a.mr, 0, 8, nodes.b.mr.address(),
                            nodes.b.mr.rkey()).signaled(signaled)); // ENOMEM here fails the test
                    posted++;
                }
                int n = nodes.a.cq.poll(batch);
                for (int i = 0; i < n; i++) {
                    assertThat(batch[i].status()).isEqualTo(WcStatus.SUCCESS);
                    completed += moderation;
                }
            }
        }
    }

    /** What the poller does after each completion, given how many it has seen. */
    private interface OnCompletion {
        void seen(int count);
    }

    /**
     * {@code perThread} signaled 8-byte WRITEs from each of {@link #THREADS} threads (wr_id = thread × 10^6 + i),
     * retried while the send queue is full; {@return every completion, in the order polled}
     */
    private static List<WorkCompletion> postFromThreads(TwoNodes nodes, Qp qp, int perThread, OnCompletion then)
            throws Exception {
        Semaphore permits = new Semaphore(IN_FLIGHT);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        List<Thread> posters = new ArrayList<>();
        for (int t = 0; t < THREADS; t++) {
            long base = t * 1_000_000L;
            long remote = nodes.b.mr.address() + t * 8L;
            posters.add(Thread.ofPlatform().start(() -> {
                try {
                    for (int i = 0; i < perThread; i++) {
                        permits.acquire();
                        SendWr wr = SendWr.rdmaWrite(base + i, nodes.a.mr, 0, 8, remote, nodes.b.mr.rkey());
                        while (!posted(qp, wr)) {
                            Thread.onSpinWait();
                        }
                    }
                } catch (Throwable e) {
                    failure.set(e);
                }
            }));
        }
        List<WorkCompletion> all = new ArrayList<>();
        WorkCompletion[] batch = new WorkCompletion[32];
        while (all.size() < THREADS * perThread && failure.get() == null) {
            int n = nodes.a.cq.poll(batch);
            for (int i = 0; i < n; i++) {
                all.add(batch[i]);
                permits.release();
                then.seen(all.size());
            }
        }
        for (Thread poster : posters) {
            poster.join();
        }
        assertThat(failure.get()).isNull();
        return all;
    }

    /** False when the send queue is full (ENOMEM): the caller tries again. */
    private static boolean posted(Qp qp, SendWr wr) {
        try {
            qp.postSend(wr);
            return true;
        } catch (BadWorkRequestException e) {
            if (e.errno() != Errno.ENOMEM) {
                throw e;
            }
            return false;
        }
    }

    private static void assertEachOnceInThreadOrder(List<WorkCompletion> completions, int perThread) {
        Set<Long> seen = new HashSet<>();
        long[] last = new long[THREADS];
        Arrays.fill(last, -1);
        for (WorkCompletion wc : completions) {
            assertThat(seen.add(wc.wrId())).as("WR %d completed twice", wc.wrId()).isTrue();
            int thread = (int) (wc.wrId() / 1_000_000);
            long index = wc.wrId() % 1_000_000;
            assertThat(index).as("thread %d's completions in its posting order", thread).isEqualTo(last[thread] + 1);
            last[thread] = index;
        }
        assertThat(seen).hasSize(THREADS * perThread);
    }

    private static List<WorkCompletion> pollUntil(TwoNodes nodes, int count) {
        List<WorkCompletion> all = new ArrayList<>();
        WorkCompletion[] one = new WorkCompletion[1];
        while (all.size() < count) {
            if (nodes.a.cq.poll(one) == 1) {
                all.add(one[0]);
            }
        }
        return all;
    }
}
