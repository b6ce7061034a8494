package org.roce4j.emulator.fabric;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.roce4j.wire.Opcode;
import org.roce4j.wire.PacketInfo;
import org.roce4j.wire.PacketWriter;

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

    /**
     * A train ({@link PayloadReference#train}) keeps its place for each of its packets: each taken in turn is the
     * next MIDDLE packet (next PSN, next payload bytes, AckReq on the last only), a frame queued after it at the
     * same time waits for all of them, and the queue counts packets, not slots.
     */
    @Test
    void aTrainLeavesAsItsPacketsOneAtATimeInItsPlace() {
        byte[] frame = new byte[200];
        PacketWriter writer = new PacketWriter();
        writer.offloadIcrc(true);
        int length = writer.ethernet(frame, 0, 2, 1).ipv4(0, 10, true, 64, new byte[4], new byte[4]).udp(9)
                .bth(Opcode.RC_RDMA_WRITE_MIDDLE, 5, 1000).finish(64);
        PayloadReference.Source source = new PayloadReference.Source() {
            public MemorySegment segment() { return MemorySegment.NULL; }
            public boolean isReadable() { return true; }
        };
        DeliveryQueue queue = new DeliveryQueue(4);
        queue.add(100, frame, length, null, null, true, true,
                new PayloadReference().set(source, 4096, length - 68, 3 * 64).train(3, 64, 1, true, false));
        queue.add(100, new byte[] {9}, 1, null);
        assertThat(queue.size()).isEqualTo(4);

        PacketInfo packet = new PacketInfo();
        PayloadReference delivered = new PayloadReference();
        for (int i = 0; i < 3; i++) {
            int slot = queue.earliest();
            assertThat(queue.buffer(slot)).isSameAs(frame);
            assertThat(packet.parseTrustedFrame(frame, 0, length)).isTrue();
            assertThat(packet.psn()).isEqualTo(1000 + i);
            assertThat(packet.ackReq()).isEqualTo(i == 2);
            assertThat((frame[packet.ipOffset() + 4] & 0xFF) << 8 | frame[packet.ipOffset() + 5] & 0xFF)
                    .as("IPv4 Identification").isEqualTo(10 + i);
            assertThat(queue.payload(slot, delivered).sourceOffset()).isEqualTo(4096 + 64L * i);
            assertThat(queue.packets(slot)).isEqualTo(3 - i);
            if (i < 2) {
                queue.nextPacketOfTrain(slot);
            } else {
                assertThat(queue.removeEarliest()).isEqualTo(slot);
                queue.free(slot);
            }
            assertThat(queue.size()).isEqualTo(3 - i);
        }
        int last = queue.removeEarliest();
        assertThat(queue.buffer(last)).containsExactly(9);
        assertThat(queue.isEmpty()).isTrue();
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
