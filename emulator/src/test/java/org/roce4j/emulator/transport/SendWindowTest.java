package org.roce4j.emulator.transport;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.roce4j.wire.Psn;

/** The PSNs the requester and completer share: 24-bit modular, as every PSN comparison is. */
class SendWindowTest {
    /** Three PSNs before the 24-bit wrap, so the window straddles it. */
    private static final int NEAR_WRAP = 0xFFFFFD;

    @Test
    @DisplayName("sq_psn set: nothing outstanding, no PSN answerable, the window empty")
    void startAtIsEmpty() {
        SendWindow window = new SendWindow();
        window.startAt(NEAR_WRAP);
        assertThat(window.hasOutstandingPackets()).isFalse();
        assertThat(window.isOutstanding(NEAR_WRAP)).as("not yet sent").isFalse();
        assertThat(window.isFull()).isFalse();
    }

    @Test
    @DisplayName("rxe_comp.c check_psn: only PSNs sent and not acknowledged are answerable, across the 24-bit wrap")
    void outstandingAcrossTheWrap() {
        SendWindow window = new SendWindow();
        window.startAt(NEAR_WRAP);
        window.nextPsn = Psn.add(NEAR_WRAP, 6); // 0xFFFFFD..0x000002 sent
        assertThat(window.hasOutstandingPackets()).isTrue();
        assertThat(window.isOutstanding(NEAR_WRAP)).isTrue();
        assertThat(window.isOutstanding(0x000002)).isTrue();
        assertThat(window.isOutstanding(0x000003)).as("the next PSN, not sent").isFalse();
        assertThat(window.isOutstanding(Psn.add(NEAR_WRAP, -1))).as("already acknowledged").isFalse();
        window.unackedPsn = window.nextPsn;
        assertThat(window.hasOutstandingPackets()).as("all acknowledged").isFalse();
    }

    @Test
    @DisplayName("rxe RXE_MAX_UNACKED_PSNS: the window is full at 128 unacknowledged PSNs, not at 127")
    void fullAtTheUnackedLimit() {
        SendWindow window = new SendWindow();
        window.startAt(NEAR_WRAP);
        window.nextPsn = Psn.add(NEAR_WRAP, SendWindow.MAX_UNACKED_PSNS - 1);
        assertThat(window.isFull()).isFalse();
        window.nextPsn = Psn.add(NEAR_WRAP, SendWindow.MAX_UNACKED_PSNS);
        assertThat(window.isFull()).isTrue();
    }
}
