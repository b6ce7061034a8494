package org.roce4j.emulator.fabric;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class DeliveryQueueTest {

    record Entry(long time, int sequence) {}

    @Test
    void removesByTimeThenByQueueOrderUnderRandomInterleavings() {
        checkAgainstASortedList(4, now -> now.random().nextLong(0, 50)); // few distinct times: many ties
    }

    /** The in-order ring wraps with a mask: a capacity asked for that is no power of two must still wrap right. */
    @ParameterizedTest
    @ValueSource(ints = {1, 5, 6, 7, 9, 100})
    void aQueueOfAnyInitialCapacityWrapsItsRingInOrder(int initialCapacity) {
        checkAgainstASortedList(initialCapacity, now -> now.time() + 1_000);
    }

    /**
     * The fabric's common case: every frame one link delay after the current time, which only grows, and now
     * and then one delayed further (a fault) or sent on a shorter hop: frames in order and out of it mixed.
     */
    @Test
    void removesByTimeThenByQueueOrderWhenMostFramesComeInOrder() {
        checkAgainstASortedList(4, now -> {
            int kind = now.random().nextInt(20);
            long delay = kind == 0 ? now.random().nextLong(0, 5_000) : kind == 1 ? 0 : 1_000;
            return now.time() + delay;
        });
    }

    @Test
    void aFrameDueBeforeTheLastOneQueuedInOrderStillLeavesFirst() {
        DeliveryQueue queue = new DeliveryQueue(4);
        queue.add(100, new byte[] {1}, 1, null);
        queue.add(200, new byte[] {2}, 1, null);
        queue.add(150, new byte[] {3}, 1, null);
        queue.add(100, new byte[] {4}, 1, null); // the same time as the first: after it, queuing order

        List<Integer> order = new ArrayList<>();
        while (!queue.isEmpty()) {
            int slot = queue.removeEarliest();
            order.add((int) queue.buffer(slot)[0]);
            queue.free(slot);
        }

        assertThat(order).containsExactly(1, 4, 3, 2);
    }

    private record Now(SplittableRandom random, long time) {}

    private static void checkAgainstASortedList(int initialCapacity, java.util.function.ToLongFunction<Now> deliveryTime) {
        long seed = new SplittableRandom().nextLong();
        SplittableRandom random = new SplittableRandom(seed);
        DeliveryQueue queue = new DeliveryQueue(initialCapacity);
        List<Entry> reference = new ArrayList<>();
        List<Entry> removed = new ArrayList<>();
        List<Entry> expected = new ArrayList<>();
        int sequence = 0;
        long now = 0;
        for (int round = 0; round < 20_000; round++) {
            if (random.nextInt(3) > 0 || queue.isEmpty()) {
                long time = deliveryTime.applyAsLong(new Now(random, now));
                byte[] frame = {(byte) sequence, (byte) (sequence >>> 8), (byte) (sequence >>> 16)};
                queue.add(time, frame, 3, null);
                reference.add(new Entry(time, sequence++));
            } else {
                reference.sort(Comparator.comparingLong(Entry::time).thenComparingInt(Entry::sequence));
                expected.add(reference.removeFirst());
                assertThat(queue.earliestTime()).as("seed %d", seed).isEqualTo(expected.getLast().time());
                int slot = queue.removeEarliest();
                byte[] frame = queue.buffer(slot);
                removed.add(new Entry(queue.time(slot),
                        frame[0] & 0xFF | (frame[1] & 0xFF) << 8 | (frame[2] & 0xFF) << 16));
                now = Math.max(now, queue.time(slot)); // time moves to what was delivered, never back
                queue.free(slot);
            }
        }
        assertThat(removed).as("seed %d", seed).isEqualTo(expected);
        assertThat(queue.size()).isEqualTo(reference.size());
    }

    @Test
    void earliestTimeOfAnEmptyQueueIsNever() {
        DeliveryQueue queue = new DeliveryQueue(4);
        assertThat(queue.earliestTime()).isEqualTo(Long.MAX_VALUE);
        queue.add(7, new byte[1], 1, null);
        assertThat(queue.earliestTime()).isEqualTo(7);
    }
}
