package org.roce4j.emulator.transport;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.roce4j.verbs.RecvWr;

class ReceiveQueueTest {

    /** A receive WQE whose SGE i is at 1000 * id + i, (10 * id + i) bytes long, lkey -(id + i) (high bit set). */
    private static RecvWr wr(int id, int sges) {
        RecvWr wr = new RecvWr().wrId(id);
        for (int i = 0; i < sges; i++) {
            wr.sgList().add(1000L * id + i, 10 * id + i, -(id + i));
        }
        return wr;
    }

    private static void assertHolds(ReceiveCursor cursor, int id, int sges) {
        assertThat(cursor.wrId).isEqualTo(id);
        assertThat(cursor.numSge).isEqualTo(sges);
        long capacity = 0;
        for (int i = 0; i < sges; i++) {
            assertThat(SgeCopy.address(cursor.sges, i)).isEqualTo(1000L * id + i);
            assertThat(SgeCopy.length(cursor.sges, i)).isEqualTo(10 * id + i);
            assertThat(SgeCopy.lkey(cursor.sges, i)).isEqualTo(-(id + i));
            capacity += 10 * id + i;
        }
        assertThat(cursor.capacity).isEqualTo(capacity);
        assertThat(cursor.written).isZero();
    }

    @Test
    void aTakenWqeBringsItsOwnSgesIntoTheCursorFromAnySlot() {
        ReceiveQueue queue = new ReceiveQueue(4, 3);
        ReceiveCursor cursor = new ReceiveCursor(3);
        for (int id = 1; id <= 6; id++) { // wraps the ring: slots 0 … 3, then 0 and 1 again
            queue.post(wr(id, id % 3 + 1));
            assertThat(queue.take(cursor)).isTrue();
            assertHolds(cursor, id, id % 3 + 1);
        }
        assertThat(queue.take(cursor)).isFalse();
    }

    @Test
    void aResizedQueueKeepsItsWqesAndTheirSgesInOrder() {
        ReceiveQueue queue = new ReceiveQueue(4, 2);
        ReceiveCursor cursor = new ReceiveCursor(2);
        queue.post(wr(1, 2));
        queue.post(wr(2, 1));
        queue.post(wr(3, 2));
        assertThat(queue.take(cursor)).isTrue(); // the head moves: the resize starts from slot 1
        queue.post(wr(4, 2));
        queue.post(wr(5, 1)); // in slot 0 again: the ring has wrapped

        ReceiveQueue resized = queue.resizedTo(8);

        assertThat(resized.count()).isEqualTo(4);
        int[][] expected = {{2, 1}, {3, 2}, {4, 2}, {5, 1}};
        for (int[] wqe : expected) {
            assertThat(resized.take(cursor)).isTrue();
            assertHolds(cursor, wqe[0], wqe[1]);
        }
        assertThat(resized.take(cursor)).isFalse();
    }

    @Test
    void anSgeKeepsAnUnsignedLengthAndANegativeLkeyApart() {
        long[] sges = new long[2 * SgeCopy.LONGS_PER_SGE];

        SgeCopy.put(sges, 1, 0x7F00_0000_1000L, 0xFFFF_FFF0, 0x8000_0001);
        SgeCopy.put(sges, 0, 5, 7, -1);

        assertThat(SgeCopy.address(sges, 1)).isEqualTo(0x7F00_0000_1000L);
        assertThat(SgeCopy.length(sges, 1)).isEqualTo(0xFFFF_FFF0L);
        assertThat(SgeCopy.lkey(sges, 1)).isEqualTo(0x8000_0001);
        assertThat(SgeCopy.length(sges, 0)).isEqualTo(7);
        assertThat(SgeCopy.lkey(sges, 0)).isEqualTo(-1);
    }
}
