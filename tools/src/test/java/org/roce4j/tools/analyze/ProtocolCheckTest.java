package org.roce4j.tools.analyze;

import static org.assertj.core.api.Assertions.assertThat;
import static org.roce4j.wire.Opcode.RC_RDMA_READ_RESPONSE_FIRST;
import static org.roce4j.wire.Opcode.RC_RDMA_READ_RESPONSE_LAST;
import static org.roce4j.wire.Opcode.RC_RDMA_READ_RESPONSE_ONLY;
import static org.roce4j.wire.Opcode.RC_RDMA_WRITE_FIRST;
import static org.roce4j.wire.Opcode.RC_RDMA_WRITE_LAST;
import static org.roce4j.wire.Opcode.RC_RDMA_WRITE_MIDDLE;
import static org.roce4j.wire.Opcode.RC_RDMA_WRITE_ONLY;
import static org.roce4j.wire.Opcode.RC_SEND_ONLY;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Hand-made captures, each breaking one rule the protocol check names, next to the same capture
 * done right, which must analyse clean: so each check is shown to fire on the fault and only on it.
 */
class ProtocolCheckTest {
    @TempDir
    Path dir;

    private static HandMadeCapture fourWritesNakedAt102() {
        return new HandMadeCapture()
                .write(0, RC_RDMA_WRITE_ONLY, 100, 64).write(1, RC_RDMA_WRITE_ONLY, 101, 64)
                .write(3, RC_RDMA_WRITE_ONLY, 103, 64) // 102 lost
                .sequenceNak(10, 102);
    }

    @Test
    @DisplayName("IBTA 9.7.5.2.1: a go-back after a sequence NAK that resumes before the NAKed PSN is GO_BACK_NOT_AT_NAKED_PSN")
    void goBackBeforeTheNakedPsnIsAViolation() throws IOException {
        AnalysisReport report = fourWritesNakedAt102()
                .write(20, RC_RDMA_WRITE_ONLY, 100, 64).write(21, RC_RDMA_WRITE_ONLY, 101, 64)
                .write(22, RC_RDMA_WRITE_ONLY, 102, 64).write(23, RC_RDMA_WRITE_ONLY, 103, 64).ack(30, 103)
                .analyze(dir);
        assertThat(report.violationCounts()).isEqualTo(Map.of(ViolationKind.GO_BACK_NOT_AT_NAKED_PSN, 1L));
        assertThat(report.violations().getFirst().frame()).isEqualTo(5);
    }

    @Test
    @DisplayName("IBTA 9.7.5.2.1: a go-back that resumes at the NAKed PSN is clean and counted as a SEQUENCE_NAK retransmission")
    void goBackAtTheNakedPsnIsClean() throws IOException {
        AnalysisReport report = fourWritesNakedAt102()
                .write(20, RC_RDMA_WRITE_ONLY, 102, 64).write(21, RC_RDMA_WRITE_ONLY, 103, 64).ack(30, 103)
                .analyze(dir);
        assertThat(report.clean()).as(report.violations().toString()).isTrue();
        assertThat(report.retransmissions()).containsEntry(RetransmissionCause.SEQUENCE_NAK, 1L)
                .containsEntry(RetransmissionCause.LOCAL_ACK_TIMEOUT, 0L);
        RcFlow flow = report.rcFlows.getFirst();
        assertThat(flow.naksByCode).isEqualTo(Map.of("PSN_SEQUENCE_ERROR", 1L));
        assertThat(flow.psnGaps).isEqualTo(1);
        assertThat(flow.messagesAcknowledged).isEqualTo(4);
        assertThat(flow.duplicates.total()).isZero();
    }

    /** A 3-PMTU READ at PSN 200 whose middle response is lost: the last one arrives, an implicit NAK. */
    private static HandMadeCapture readWithLostMiddleResponse() {
        return new HandMadeCapture()
                .write(0, RC_RDMA_WRITE_FIRST, 198, 1024).write(1, RC_RDMA_WRITE_LAST, 199, 10).ack(5, 199) // PMTU 1024
                .read(10, 200, 0x10000, 3072)
                .readResponse(20, RC_RDMA_READ_RESPONSE_FIRST, 200, 1024)
                .readResponse(22, RC_RDMA_READ_RESPONSE_LAST, 202, 1024);
    }

    @Test
    @DisplayName("rxe_req.c req_retry: a READ resumed at PSN 201 asking VA+1024, length-1024 is clean; its cause is an IMPLICIT_NAK")
    void readResumedWithAdvancedRethIsClean() throws IOException {
        AnalysisReport report = readWithLostMiddleResponse().read(30, 201, 0x10000 + 1024, 2048)
                .readResponse(40, RC_RDMA_READ_RESPONSE_FIRST, 201, 1024).readResponse(41, RC_RDMA_READ_RESPONSE_LAST, 202, 1024)
                .analyze(dir);
        assertThat(report.clean()).as(report.violations().toString()).isTrue();
        assertThat(report.retransmissions()).containsEntry(RetransmissionCause.IMPLICIT_NAK, 1L);
        assertThat(report.rcFlows.getFirst().messagesAcknowledged).isEqualTo(2);
    }

    @Test
    @DisplayName("rxe_req.c req_retry: a READ resumed at PSN 201 with the original RETH is READ_RETRY_RETH_MISMATCH")
    void readResumedWithTheOriginalRethIsAViolation() throws IOException {
        AnalysisReport report = readWithLostMiddleResponse().read(30, 201, 0x10000, 3072).analyze(dir);
        assertThat(report.violationCounts()).isEqualTo(Map.of(ViolationKind.READ_RETRY_RETH_MISMATCH, 1L));
        assertThat(report.violations().getFirst().detail()).contains("expected VA 0x10400, length 2048");
    }

    private static HandMadeCapture atomicAnsweredThenResent(long secondOriginal) {
        return new HandMadeCapture().fetchAdd(0, 400).atomicAck(10, 400, 5)
                .fetchAdd(5000, 400) // the requester did not see the ACK in time: a local ACK timeout
                .atomicAck(5010, 400, secondOriginal);
    }

    @Test
    @DisplayName("rxe_resp.c duplicate_request: a duplicate atomic answered from the cache (same original value) is clean, ATOMIC_REPLAYED")
    void duplicateAtomicReplayedFromTheCacheIsClean() throws IOException {
        AnalysisReport report = atomicAnsweredThenResent(5).analyze(dir);
        assertThat(report.clean()).as(report.violations().toString()).isTrue();
        assertThat(report.retransmissions()).containsEntry(RetransmissionCause.LOCAL_ACK_TIMEOUT, 1L);
        assertThat(report.rcFlows.getFirst().duplicates.answers()).isEqualTo(Map.of(DuplicateAnswer.ATOMIC_REPLAYED, 1L));
    }

    @Test
    @DisplayName("rxe_resp.c duplicate_request: two Atomic Acknowledges for one PSN with different original values are ATOMIC_EXECUTED_TWICE")
    void atomicExecutedTwiceIsAViolation() throws IOException {
        AnalysisReport report = atomicAnsweredThenResent(6).analyze(dir);
        assertThat(report.violationCounts()).isEqualTo(Map.of(ViolationKind.ATOMIC_EXECUTED_TWICE, 1L));
        assertThat(report.violations().getFirst().frame()).isEqualTo(4);
    }

    @Test
    @DisplayName("IBTA 9.7.5.1: an ACK for a PSN past the highest one sent is ACK_FOR_UNSENT_PSN; the ACK for the last one sent is clean")
    void ackForAPsnNeverSentIsAViolation() throws IOException {
        assertThat(new HandMadeCapture().write(0, RC_RDMA_WRITE_ONLY, 500, 8).ack(10, 500).analyze(dir).clean()).isTrue();
        AnalysisReport report = new HandMadeCapture().write(0, RC_RDMA_WRITE_ONLY, 500, 8).ack(10, 501).analyze(dir);
        assertThat(report.violationCounts()).isEqualTo(Map.of(ViolationKind.ACK_FOR_UNSENT_PSN, 1L));
    }

    @Test
    @DisplayName("IBTA 9.7.5.2.8 / table 45: an RNR NAK with timer 14 (1.28 ms) is an RNR retransmission; a resend after 2 ms waited, after 0.1 ms did not")
    void rnrRetransmissionsSayWhetherTheRequesterWaited() throws IOException {
        RcFlow waited = new HandMadeCapture().request(0, RC_SEND_ONLY, 600, 16).rnrNak(10, 600, 14)
                .request(2010, RC_SEND_ONLY, 600, 16).ack(2020, 600).analyze(dir).rcFlows.getFirst();
        RcFlow hurried = new HandMadeCapture().request(0, RC_SEND_ONLY, 600, 16).rnrNak(10, 600, 14)
                .request(110, RC_SEND_ONLY, 600, 16).ack(120, 600).analyze(dir).rcFlows.getFirst();
        assertThat(waited.retransmissions).isEqualTo(Map.of(RetransmissionCause.RNR, 1L));
        assertThat(waited.rnrNaks).isEqualTo(1);
        assertThat(waited.rnrWaited).isEqualTo(1);
        assertThat(waited.rnrNotWaited).isZero();
        assertThat(hurried.rnrWaited).isZero();
        assertThat(hurried.rnrNotWaited).isEqualTo(1);
    }

    @Test
    @DisplayName("IBTA 9.7.5.1.2: a coalesced ACK acknowledges every earlier message; FIRST/MIDDLE/LAST make one message of its RETH length")
    void coalescedAckGivesEachMessageItsLatency() throws IOException {
        RcFlow flow = new HandMadeCapture()
                .write(0, RC_RDMA_WRITE_FIRST, 700, 1024).write(1, RC_RDMA_WRITE_MIDDLE, 701, 1024)
                .write(2, RC_RDMA_WRITE_LAST, 702, 1024).write(10, RC_RDMA_WRITE_ONLY, 703, 100)
                .ack(50, 703).analyze(dir).rcFlows.getFirst();
        assertThat(flow.messagesSent).isEqualTo(2);
        assertThat(flow.messagesAcknowledged).isEqualTo(2);
        assertThat(flow.latency.min()).isEqualTo(40_000);
        assertThat(flow.latency.max()).isEqualTo(50_000);
        assertThat(flow.latency.quantile(0.5)).isEqualTo(40_000);
        assertThat(flow.goodput.totalBytes()).as("RETH lengths: 1024 (hand-made FIRST) + 100").isEqualTo(1024 + 100);
        assertThat(flow.retransmissions).isEmpty();
    }

    @Test
    @DisplayName("a READ response for a later READ while an earlier READ waits is an implicit NAK; the resend is an IMPLICIT_NAK retransmission")
    void laterReadResponseIsAnImplicitNak() throws IOException {
        AnalysisReport report = new HandMadeCapture()
                .read(0, 300, 0x1000, 8).read(1, 301, 0x2000, 8)
                .readResponse(10, RC_RDMA_READ_RESPONSE_ONLY, 301, 8) // 300's response lost
                .read(20, 300, 0x1000, 8).read(21, 301, 0x2000, 8)
                .readResponse(30, RC_RDMA_READ_RESPONSE_ONLY, 300, 8).readResponse(31, RC_RDMA_READ_RESPONSE_ONLY, 301, 8)
                .analyze(dir);
        assertThat(report.clean()).as(report.violations().toString()).isTrue();
        assertThat(report.retransmissions()).containsEntry(RetransmissionCause.IMPLICIT_NAK, 1L)
                .containsEntry(RetransmissionCause.LOCAL_ACK_TIMEOUT, 0L);
        assertThat(report.rcFlows.getFirst().messagesAcknowledged).isEqualTo(2);
    }
}
