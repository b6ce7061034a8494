package org.roce4j.tools;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** roce4j's data checks in the perftest peers (perftest 6.06 has none): each one can fail. */
class PerftestDataCheckTest {

    @Test
    @DisplayName("READ: a READ that brings other bytes than the first READ of the same remote buffer fails, naming the byte")
    void readsMustRepeatTheFirst() throws Exception {
        MemorySegment slot = MemorySegment.ofArray(new byte[64]);
        slot.fill((byte) 0x5A);
        PerftestDataCheck.Reads reads = new PerftestDataCheck.Reads(new MemorySegment[] {slot});
        reads.completed(0);
        reads.completed(0);
        slot.set(ValueLayout.JAVA_BYTE, 17, (byte) 0x5B);
        assertThatThrownBy(() -> reads.completed(0)).isInstanceOf(PingpongFailure.class)
                .hasMessageContaining("READ 3 of qp 0 brought 0x5b at byte 17")
                .hasMessageContaining("brought 0x5a");
    }

    @Test
    @DisplayName("FETCH_AND_ADD one at a time: each fetches the one before's value plus 1 (wrapping), else it fails")
    void fetchAndAddOneAtATime() throws Exception {
        PerftestDataCheck.Fetches fetches = new PerftestDataCheck.Fetches(false, true, 1);
        fetches.completed(0, -2);
        fetches.completed(0, -1);
        fetches.completed(0, 0);
        assertThatThrownBy(() -> fetches.completed(0, 2)).isInstanceOf(PingpongFailure.class)
                .hasMessageContaining("FETCH_AND_ADD 4 fetched 0x2; the one before fetched 0x0");
    }

    @Test
    @DisplayName("FETCH_AND_ADD in flight (bw): the result slot read at each completion may repeat or jump, never go down")
    void fetchAndAddInFlight() throws Exception {
        PerftestDataCheck.Fetches fetches = new PerftestDataCheck.Fetches(false, false, 2);
        fetches.completed(0, 10);
        fetches.completed(1, 3);
        fetches.completed(0, 12);
        fetches.completed(0, 12);
        fetches.completed(1, 4);
        assertThatThrownBy(() -> fetches.completed(0, 11)).isInstanceOf(PingpongFailure.class)
                .hasMessageContaining("qp 0").hasMessageContaining("holds 0xb, less than 0xc");
    }

    @Test
    @DisplayName("CMP_AND_SWAP (compare 1, swap 0): the same value again, or 0 after a 1; anything else fails")
    void compareAndSwap() throws Exception {
        PerftestDataCheck.Fetches same = new PerftestDataCheck.Fetches(true, true, 1);
        same.completed(0, 7);
        same.completed(0, 7);
        assertThatThrownBy(() -> same.completed(0, 8)).isInstanceOf(PingpongFailure.class)
                .hasMessageContaining("CMP_AND_SWAP 3 of qp 0 fetched 0x8; the one before fetched 0x7");

        PerftestDataCheck.Fetches swapped = new PerftestDataCheck.Fetches(true, false, 1);
        swapped.completed(0, 1);
        swapped.completed(0, 0);
        swapped.completed(0, 0);
        PerftestDataCheck.Fetches notSwapped = new PerftestDataCheck.Fetches(true, false, 1);
        notSwapped.completed(0, 1);
        assertThatThrownBy(() -> notSwapped.completed(0, 1)).isInstanceOf(PingpongFailure.class);
    }

    @Test
    @DisplayName("write-lat: the peer's message must be zero but for its last byte and, with -a, the earlier sizes' last "
            + "numbers (iters)")
    void writeLatMessage() throws Exception {
        MemorySegment message = MemorySegment.ofArray(new byte[16]);
        message.set(ValueLayout.JAVA_BYTE, 15, (byte) 3); // this run's number
        message.set(ValueLayout.JAVA_BYTE, 1, (byte) 5); // size 2's run ended at 5
        message.set(ValueLayout.JAVA_BYTE, 3, (byte) 5); // size 4's
        message.set(ValueLayout.JAVA_BYTE, 7, (byte) 5); // size 8's
        new PerftestDataCheck.WriteLatMessages(message, new long[] {2, 4, 8}, 5).arrived(3);

        assertThatThrownBy(() -> new PerftestDataCheck.WriteLatMessages(message, new long[0], 5).arrived(3))
                .isInstanceOf(PingpongFailure.class).hasMessageContaining("write 3 has 0x05 at byte 1, not 0x00");
        message.set(ValueLayout.JAVA_BYTE, 9, (byte) 0x80);
        assertThatThrownBy(() -> new PerftestDataCheck.WriteLatMessages(message, new long[] {2, 4, 8}, 5).arrived(3))
                .isInstanceOf(PingpongFailure.class).hasMessageContaining("0x80 at byte 9");
    }

    @Test
    @DisplayName("Every peer says what it checked, or why it could not")
    void notes() {
        assertThat(PerftestDataCheck.note(options(Perftest.Test.READ_LAT, "h", 0))).contains("every READ returned");
        assertThat(PerftestDataCheck.note(options(Perftest.Test.READ_LAT, null, 0))).contains("none on this side");
        assertThat(PerftestDataCheck.note(options(Perftest.Test.WRITE_BW, "h", 0))).contains("none (perftest fills");
        assertThat(PerftestDataCheck.note(options(Perftest.Test.SEND_LAT, null, 0))).contains("none (perftest fills");
        assertThat(PerftestDataCheck.note(options(Perftest.Test.WRITE_LAT, null, 0))).contains("zeroed buffer");
        assertThat(PerftestDataCheck.note(options(Perftest.Test.ATOMIC_BW, "h", 0))).contains("never went down");
        assertThat(PerftestDataCheck.note(options(Perftest.Test.ATOMIC_LAT, "h", 0))).contains("plus 1");
        assertThat(PerftestDataCheck.note(options(Perftest.Test.READ_BW, "h", 2))).contains("none with -D");
    }

    private static Perftest.Options options(Perftest.Test test, String host, int duration) {
        return new Perftest.Options(test, host, 18515, null, 1, 1, 8, false, 5, duration, null, 128, 1,
                Perftest.Atomic.FETCH_AND_ADD, false, 14);
    }
}
