package org.roce4j.emulator.fabric;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class DeliveryQueueTest {

    record Entry(long time, int sequence) {}

    @Test
    void removesByTimeThenByQueueOrderUnderRandomInterleavings() {
        long seed = new SplittableRandom().nextLong();
        SplittableRandom random = new SplittableRandom(seed);
        DeliveryQueue queue = new DeliveryQueue(4);
        List<Entry> reference = new ArrayList<>();
        List<Entry> removed = new ArrayList<>();
        List<Entry> expected = new ArrayList<>();
        int sequence = 0;
        for (int round = 0; round < 20_000; round++) {
            if (random.nextInt(3) > 0 || queue.isEmpty()) {
                long time = random.nextLong(0, 50); // few distinct times: many ties
                byte[] frame = {(byte) sequence, (byte) (sequence >>> 8), (byte) (sequence >>> 16)};
                queue.add(time, frame, 3, null);
                reference.add(new Entry(time, sequence++));
            } else {
                reference.sort(Comparator.comparingLong(Entry::time).thenComparingInt(Entry::sequence));
                expected.add(reference.removeFirst());
                int slot = queue.removeEarliest();
                byte[] frame = queue.buffer(slot);
                removed.add(new Entry(queue.time(slot),
                        frame[0] & 0xFF | (frame[1] & 0xFF) << 8 | (frame[2] & 0xFF) << 16));
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
