package org.roce4j.emulator.fabric;

import static org.assertj.core.api.Assertions.assertThat;
import static org.roce4j.emulator.fabric.TestFrames.A;
import static org.roce4j.emulator.fabric.TestFrames.B;
import static org.roce4j.emulator.fabric.TestFrames.frame;
import static org.roce4j.emulator.fabric.TestFrames.roceAck;
import static org.roce4j.emulator.fabric.TestFrames.roceSend;

import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class RetransmissionMarksTest {

    private final RetransmissionMarks marks = new RetransmissionMarks();

    private List<String> sent(byte[] frame) {
        return marks.onSent(frame, 0, frame.length);
    }

    @Test
    @DisplayName("IBTA 9.7.4.1.3: an RC request whose PSN is before the flow's next PSN is a retransmission (go-back-N)")
    void aRequestSentAgainIsMarked() {
        assertThat(sent(roceSend(B, A, 1, new byte[4]))).isEmpty();
        assertThat(sent(roceSend(B, A, 2, new byte[4]))).isEmpty();
        assertThat(sent(roceSend(B, A, 3, new byte[4]))).isEmpty();
        assertThat(sent(roceSend(B, A, 2, new byte[4]))).containsExactly("retransmission");
        assertThat(sent(roceSend(B, A, 3, new byte[4]))).containsExactly("retransmission");
        assertThat(sent(roceSend(B, A, 4, new byte[4]))).isEmpty();
    }

    @Test
    @DisplayName("flows are told apart by sender, PSNs compare modulo 2^24, and responses and non-RoCE frames are never marked")
    void onlyTheSameFlowsRequestsCount() {
        assertThat(sent(roceSend(B, A, 0xFFFFFF, new byte[4]))).isEmpty();
        assertThat(sent(roceSend(B, A, 0, new byte[4]))).as("the PSN after 0xFFFFFF").isEmpty();
        assertThat(sent(roceSend(A, B, 5, new byte[4]))).as("another sender's flow").isEmpty();
        assertThat(sent(roceAck(A, B, 1))).isEmpty();
        assertThat(sent(roceAck(A, B, 1))).as("an ACK sent twice is no retransmitted request").isEmpty();
        assertThat(sent(frame(B, A, 1, 60))).isEmpty();
        assertThat(sent(roceSend(B, A, 0xFFFFFF, new byte[4]))).containsExactly("retransmission");
    }
}
