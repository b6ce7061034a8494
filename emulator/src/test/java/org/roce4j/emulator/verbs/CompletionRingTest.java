package org.roce4j.emulator.verbs;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.roce4j.verbs.WcOpcode;
import org.roce4j.verbs.WcStatus;
import org.roce4j.verbs.WorkCompletion;

/** The CQ's ring: the device's side adds, the pollers' side takes, each under its own lock. */
class CompletionRingTest {

    private static WorkCompletion completion(long wrId) {
        return new WorkCompletion(wrId, WcStatus.SUCCESS, WcOpcode.SEND, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0);
    }

    private static List<Long> takeAll(CompletionRing ring) {
        WorkCompletion[] into = new WorkCompletion[64];
        List<Long> wrIds = new ArrayList<>();
        int n = ring.take(into);
        for (int i = 0; i < n; i++) {
            wrIds.add(into[i].wrId());
        }
        return wrIds;
    }

    @Test
    @DisplayName("completions come out oldest first across the ring's wrap, and a full ring refuses the next")
    void oldestFirstAndFull() {
        CompletionRing ring = new CompletionRing(4);
        for (long id = 0; id < 3; id++) {
            assertThat(ring.offer(completion(id), 100 + id)).isTrue();
        }
        WorkCompletion[] two = new WorkCompletion[2];
        assertThat(ring.take(two)).isEqualTo(2);
        assertThat(two).extracting(WorkCompletion::wrId).containsExactly(0L, 1L);
        for (long id = 3; id < 6; id++) {
            assertThat(ring.offer(completion(id), 100 + id)).isTrue();
        }
        assertThat(ring.pending()).isEqualTo(4);
        assertThat(ring.offer(completion(6), 106)).as("full: 4 of 4").isFalse();
        assertThat(ring.peek(3).wrId()).isEqualTo(5);
        assertThat(ring.madeAt(3)).isEqualTo(105);
        assertThat(takeAll(ring)).containsExactly(2L, 3L, 4L, 5L);
        assertThat(ring.isEmpty()).isTrue();
        assertThat(ring.take(two)).isZero();
    }

    @Test
    @DisplayName("discard drops the oldest, as ibv_end_poll consumes what start/next_poll read")
    void discardDropsTheOldest() {
        CompletionRing ring = new CompletionRing(3);
        for (long id = 0; id < 3; id++) {
            ring.offer(completion(id), id);
        }
        ring.discard(2);
        assertThat(ring.offer(completion(3), 3)).isTrue();
        assertThat(takeAll(ring)).containsExactly(2L, 3L);
    }

    @Test
    @DisplayName("a resize keeps the pending completions in order, from a wrapped ring to a larger and a smaller one")
    void resizeKeepsOrder() {
        CompletionRing ring = new CompletionRing(4);
        for (long id = 0; id < 4; id++) {
            ring.offer(completion(id), 10 * id);
        }
        ring.discard(3);
        ring.offer(completion(4), 40);
        ring.offer(completion(5), 50); // pending 3, 4, 5: wrapped

        ring.resize(8);
        assertThat(ring.capacity()).isEqualTo(8);
        assertThat(ring.madeAt(2)).isEqualTo(50);
        for (long id = 6; id < 11; id++) {
            assertThat(ring.offer(completion(id), 10 * id)).isTrue();
        }
        assertThat(ring.offer(completion(11), 110)).isFalse();

        ring.discard(5); // pending 8, 9, 10
        ring.resize(3);
        assertThat(ring.offer(completion(11), 110)).as("exactly full after the resize").isFalse();
        assertThat(takeAll(ring)).containsExactly(8L, 9L, 10L);
        assertThat(ring.offer(completion(11), 110)).isTrue();
        assertThat(takeAll(ring)).containsExactly(11L);
    }

    @Test
    @Timeout(60)
    @DisplayName("one thread adding under one lock and two taking under another: every completion once, in order")
    void producerAndPollersOnTheirOwnLocks() throws InterruptedException {
        int total = 400_000;
        CompletionRing ring = new CompletionRing(16);
        ReentrantLock producerLock = new ReentrantLock();
        ReentrantLock pollLock = new ReentrantLock();
        long[] seen = new long[total];
        int[] next = new int[1]; // the index into seen, under pollLock
        Thread producer = Thread.ofPlatform().start(() -> {
            for (long id = 0; id < total; ) {
                producerLock.lock();
                try {
                    if (ring.offer(completion(id), id)) {
                        id++;
                    }
                } finally {
                    producerLock.unlock();
                }
            }
        });
        Runnable poller = () -> {
            WorkCompletion[] into = new WorkCompletion[5];
            while (true) {
                pollLock.lock();
                try {
                    if (next[0] == total) {
                        return;
                    }
                    int n = ring.take(into);
                    for (int i = 0; i < n; i++) {
                        seen[next[0]++] = into[i].wrId();
                    }
                } finally {
                    pollLock.unlock();
                }
            }
        };
        Thread first = Thread.ofPlatform().start(poller);
        Thread second = Thread.ofPlatform().start(poller);
        producer.join();
        first.join();
        second.join();
        for (int i = 0; i < total; i++) {
            assertThat(seen[i]).as("completion %d", i).isEqualTo(i);
        }
        assertThat(ring.isEmpty()).isTrue();
    }
}
