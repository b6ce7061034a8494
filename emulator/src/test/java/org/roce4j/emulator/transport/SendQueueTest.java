package org.roce4j.emulator.transport;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;

import org.junit.jupiter.api.Test;
import org.roce4j.verbs.SendWr;
import org.roce4j.verbs.WrOpcode;
import org.roce4j.verbs.spi.RegisteredMemory;

class SendQueueTest {

    /** A WRITE whose SGE i is at 1000 * id + i, (10 * id + i) bytes long, lkey id + i. */
    private static SendWr write(int id, int sges) {
        SendWr wr = new SendWr().opcode(WrOpcode.RDMA_WRITE).wrId(id);
        for (int i = 0; i < sges; i++) {
            wr.sgList().add(1000L * id + i, 10 * id + i, id + i);
        }
        return wr;
    }

    private static void assertHolds(SendQueue queue, long sequence, int id, int sges) {
        SendWqe wqe = queue.at(sequence);
        assertThat(wqe.wrId).isEqualTo(id);
        assertThat(wqe.numSge).isEqualTo(sges);
        for (int i = 0; i < sges; i++) {
            assertThat(SgeCopy.address(wqe.sges, i)).isEqualTo(1000L * id + i);
            assertThat(SgeCopy.length(wqe.sges, i)).isEqualTo(10 * id + i);
            assertThat(SgeCopy.lkey(wqe.sges, i)).isEqualTo(id + i);
        }
    }

    @Test
    void aWrPostedToAnEmptyQueueTakesSlotZeroAgainInsteadOfWalkingTheRing() {
        SendQueue queue = new SendQueue(4, 2, 0);
        long first = queue.post(write(1, 2), null, null);
        SendWqe slotZero = queue.at(first);
        queue.retired++;
        queue.release();

        long second = queue.post(write(2, 1), null, null);

        assertThat(second).isEqualTo(first + 1);
        assertThat(queue.at(second)).isSameAs(slotZero);
        assertHolds(queue, second, 2, 1);
    }

    @Test
    void outstandingWrsKeepTheirOwnSlotsWhileTheRingWraps() {
        SendQueue queue = new SendQueue(4, 2, 0);
        for (int id = 1; id <= 3; id++) {
            queue.post(write(id, id % 2 + 1), null, null);
        }
        queue.retired += 2; // sequence 2 stays outstanding: the queue is not empty, so no slot moves
        queue.release();
        for (int id = 4; id <= 6; id++) { // slots 3, 0, 1
            queue.post(write(id, id % 2 + 1), null, null);
        }

        assertThat(queue.isFull()).isTrue();
        for (int id = 3; id <= 6; id++) {
            assertHolds(queue, id - 1, id, id % 2 + 1);
        }
        assertThat(queue.at(2)).isNotSameAs(queue.at(3)).isNotSameAs(queue.at(4)).isNotSameAs(queue.at(5));
        assertThat(queue.at(3)).isNotSameAs(queue.at(4)).isNotSameAs(queue.at(5));
        assertThat(queue.at(4)).isNotSameAs(queue.at(5));
    }

    @Test
    void aSlotGetsItsWqeWhenAWrIsFirstPostedToItAndKeepsIt() {
        SendQueue queue = new SendQueue(4, 1, 0);
        assertThat(queue.at(1)).as("no WR was ever posted to slot 1").isNull();
        for (int id = 1; id <= 8; id++) { // one WR at a time: slot 0 every time
            queue.post(write(id, 1), null, null);
            queue.retired++;
            queue.release();
        }
        assertThat(queue.at(9)).as("still none in slot 1").isNull();

        long[] sequences = new long[3];
        for (int id = 9; id <= 11; id++) { // three outstanding: slots 0, 1 and 2
            sequences[id - 9] = queue.post(write(id, 1), null, null);
        }
        SendWqe slotOne = queue.at(sequences[1]);
        assertThat(slotOne).isNotNull().isNotSameAs(queue.at(sequences[0])).isNotSameAs(queue.at(sequences[2]));
        for (int id = 9; id <= 11; id++) {
            assertHolds(queue, sequences[id - 9], id, 1);
        }
        queue.retired += 3;
        queue.release();

        queue.post(write(12, 1), null, null);
        long second = queue.post(write(13, 1), null, null);
        assertThat(queue.at(second)).as("slot 1's WQE, made once").isSameAs(slotOne);
        assertHolds(queue, second, 13, 1);
    }

    @Test
    void aRetiredSlotIsNotPostedToAgainUntilTheRnicReleasesIt() {
        SendQueue queue = new SendQueue(2, 1, 0);
        long first = queue.post(write(1, 1), null, null);
        queue.post(write(2, 1), null, null);
        queue.retired += 2; // the completer is still reading the two WQEs: their completions are not written yet

        assertThat(queue.isFull()).as("a poster on another thread must not overwrite them").isTrue();
        assertThat(queue.room()).isZero();

        queue.release();
        assertThat(queue.room()).isEqualTo(2);
        long third = queue.post(write(3, 1), null, null);
        assertThat(queue.at(third)).as("the released queue was empty: slot 0 again").isSameAs(queue.at(first));
    }

    @Test
    void aClearedQueueHasRoomForAllItsSlotsAtOnce() {
        SendQueue queue = new SendQueue(2, 1, 0);
        queue.post(write(1, 1), null, null);
        queue.post(write(2, 1), null, null);

        queue.clear(); // RESET: no completion reads the two WQEs

        assertThat(queue.room()).isEqualTo(2);
    }

    @Test
    void aBuiltWrKeepsTheLengthAndTheInlineDataItsBuilderSetEvenWhenZero() {
        SendQueue queue = new SendQueue(4, 1, 16);
        queue.postBuilt(write(1, 1), null, null, 0, -1, 0, 0); // ibv_wr_flush with len 0: the WQE's length is 0
        SendWqe flushed = queue.at(0);
        assertThat(flushed.length).isZero();
        assertThat(flushed.numSge).isEqualTo(1);

        queue.postBuilt(write(2, 1), null, new byte[8], 0, 0, -1, 0); // ibv_wr_set_inline_data of no bytes
        SendWqe empty = queue.at(1);
        assertThat(empty.inline).isTrue();
        assertThat(empty.numSge).isZero();
        assertThat(empty.length).isZero();
    }

    @Test
    void anInlineWrWhoseMemoryIsUnregisteredClosedOrAnotherThreadsIsRefusedAndNothingIsPosted() throws Exception {
        SendQueue queue = new SendQueue(4, 1, 16);
        RegisteredMemory registered = new RegisteredMemory();
        Arena arena = Arena.ofConfined();
        MemorySegment memory = arena.allocate(16);
        assertThat(queue.post(inlineSendOf(memory), null, registered)).as("not registered").isEqualTo(-1);
        registered.add(memory);
        arena.close();
        assertThat(queue.post(inlineSendOf(memory), null, registered)).as("its arena closed").isEqualTo(-1);

        CountDownLatch refused = new CountDownLatch(1);
        CompletableFuture<MemorySegment> owned = new CompletableFuture<>();
        Thread owner = Thread.ofPlatform().start(() -> {
            try (Arena confined = Arena.ofConfined()) {
                owned.complete(confined.allocate(16));
                refused.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        MemorySegment othersMemory = owned.get();
        registered.add(othersMemory);
        try {
            assertThat(queue.post(inlineSendOf(othersMemory), null, registered)).as("confined to another thread")
                    .isEqualTo(-1);
        } finally {
            refused.countDown();
            owner.join();
        }

        assertThat(queue.posted).isZero();
        assertThat(queue.room()).isEqualTo(4);
    }

    private static SendWr inlineSendOf(MemorySegment memory) {
        SendWr wr = new SendWr().opcode(WrOpcode.SEND).wrId(1).inline(true);
        wr.sgList().add(memory.address(), 8, 0);
        return wr;
    }

    @Test
    void aWqeGetsItsInlineBytesTheFirstTimeItCarriesInlineDataAndKeepsThem() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment memory = arena.allocate(16);
            memory.set(ValueLayout.JAVA_BYTE, 3, (byte) 42);
            RegisteredMemory registered = new RegisteredMemory();
            registered.add(memory);
            SendQueue queue = new SendQueue(2, 1, 16);
            long plain = queue.post(write(1, 1), null, null);
            assertThat(queue.at(plain).inlineData).as("a WQE that never carried inline data has no bytes for it").isNull();
            queue.retired++;
            queue.release();

            byte[][] held = new byte[2][];
            for (int id = 0; id < 2; id++) { // slot 0 both times
                SendWr wr = new SendWr().opcode(WrOpcode.SEND).wrId(id).inline(true);
                wr.sgList().add(memory.address() + id + 2, 2, 0);
                held[id] = queue.at(queue.post(wr, null, registered)).inlineData;
                assertThat(held[id]).hasSize(16).startsWith(id == 0 ? new byte[] {0, 42} : new byte[] {42, 0});
                queue.retired++;
                queue.release();
            }
            assertThat(held[1]).as("made once, reused").isSameAs(held[0]);
        }
    }

    @Test
    void inlineSendsOutstandingTogetherKeepTheirOwnBytesGatheredFromEverySge() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment memory = arena.allocate(64);
            for (int i = 0; i < 64; i++) {
                memory.set(ValueLayout.JAVA_BYTE, i, (byte) i);
            }
            RegisteredMemory registered = new RegisteredMemory();
            registered.add(memory);
            SendQueue queue = new SendQueue(4, 2, 16);
            long[] sequences = new long[3];
            for (int id = 0; id < 3; id++) { // bytes 10*id .. 10*id+2, then 10*id+5 .. 10*id+8
                SendWr wr = new SendWr().opcode(WrOpcode.SEND).wrId(id).inline(true);
                wr.sgList().add(memory.address() + 10 * id, 3, 0);
                wr.sgList().add(memory.address() + 10 * id + 5, 4, 0);
                sequences[id] = queue.post(wr, null, registered);
            }

            for (int id = 0; id < 3; id++) {
                byte[] held = Arrays.copyOfRange(queue.at(sequences[id]).inlineData, 0, 7);
                int b = 10 * id;
                assertThat(held).containsExactly(b, b + 1, b + 2, b + 5, b + 6, b + 7, b + 8);
            }
        }
    }
}
