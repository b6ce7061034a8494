package org.roce4j.emulator.cm;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The CM's time arithmetic against cm.c's own formulas. The connections of the other tests only
 * ever use rdma_cm's RoCE constants (ACK delay 15, packet life time 18), which leave most branches
 * of {@code cm_ack_timeout} unrun; the expected values here are cm.c's, worked by hand.
 */
class CmTimingTest {

    @ParameterizedTest(name = "cm_ack_timeout(ca_ack_delay {0}, packet_life_time {1}) = {2}")
    @CsvSource({
        // ack_timeout = life + 1 ≥ delay: one more when delay ≥ ack_timeout − 1 (= life)
        "15, 18, 19",  // rxe_rping_cm.pcap's REQ: local ACK timeout 19
        "15, 14, 16",  // 15 ≥ 15, delay 15 ≥ 14 → +1
        "14, 14, 16",  // 15 ≥ 14, delay 14 ≥ 14 → +1
        "13, 14, 15",  // 15 ≥ 13, delay 13 < 14 → no +1
        // ack_timeout = life + 1 < delay: the delay, one more when ack_timeout ≥ delay − 1
        "20, 18, 21",  // 19 < 20, 19 ≥ 19 → 21
        "20, 10, 20",  // 11 < 20, 11 < 19 → 20
        "0, 0, 2",     // 1 ≥ 0, 0 ≥ 0 → 2
        // min(31, ...): the field is 5 bits
        "31, 31, 31",
        "31, 29, 31",  // 30 < 31, 30 ≥ 30 → 32 → 31
        "5, 30, 31",   // 31 ≥ 5, 5 < 30 → 31
    })
    void ackTimeoutIsCmAckTimeout(int caAckDelay, int packetLifeTime, int expected) {
        assertThat(CmTiming.ackTimeout(caAckDelay, packetLifeTime)).isEqualTo(expected);
    }

    @ParameterizedTest(name = "cm_convert_to_ms({0}) = {1} ms")
    @CsvSource({"0, 1", "7, 1", "8, 1", "9, 2", "19, 2048", "20, 4096", "24, 65536", "31, 8388608"})
    void toMillisIsCmConvertToMs(int ibaTime, long expectedMillis) {
        // 4.096 µs × 2^t ≈ 2^(t−8) ms, never below 1 ms (max(t − 8, 0)).
        assertThat(CmTiming.toMillis(ibaTime)).isEqualTo(expectedMillis);
    }

    @Test
    @DisplayName("ib_send_cm_req: a REQ waits 2 × packet life time + the remote CM response timeout — 6144 ms for rdma_cm's 18 and 20")
    void requestTimeoutIsTwiceThePacketLifeTimePlusTheResponseTimeout() {
        assertThat(CmTiming.reqTimeoutMs(18, 20)).isEqualTo(2 * 1024 + 4096);
        assertThat(CmTiming.reqTimeoutMs(10, 9)).isEqualTo(2 * 4 + 2);
    }

    @Test
    @DisplayName("IBTA 12.6.5: the REQ's local CA GUID (and the REJ's ARI) is the GUID's eight bytes, most significant first")
    void guidBytesAreBigEndian() {
        assertThat(CmTiming.guidBytes(0x0102030405060708L)).containsExactly(1, 2, 3, 4, 5, 6, 7, 8);
        assertThat(CmTiming.guidBytes(0x8000_0000_0000_00FFL)).containsExactly(0x80, 0, 0, 0, 0, 0, 0, 0xFF);
    }
}
