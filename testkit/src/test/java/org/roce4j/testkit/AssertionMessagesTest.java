package org.roce4j.testkit;

import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.roce4j.testkit.RoceAssertions.assertThat;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import org.junit.jupiter.api.Test;
import org.roce4j.verbs.Context;
import org.roce4j.verbs.QpState;
import org.roce4j.verbs.RecvWr;
import org.roce4j.verbs.SendWr;
import org.roce4j.verbs.WcFlag;
import org.roce4j.verbs.WcOpcode;
import org.roce4j.verbs.WcStatus;
import org.roce4j.verbs.WorkCompletion;

@EmulatedFabric(seed = 7)
class AssertionMessagesTest {

    private static WorkCompletion completion(WcStatus status, WcOpcode opcode, int byteLen, int imm, int flags) {
        return new WorkCompletion(42, status, opcode, 0, byteLen, imm, 0, 0x11, 0, flags, 0, 0, 0, 0);
    }

    @Test
    void aWrongStatusIsNamedAsLibibverbsNamesItWithTheRequestItCompletes(Context a, Context b) {
        QpPair pair = QpPair.rc(a, b);
        pair.a().qp().postSend(SendWr.rdmaRead(42, pair.a().mr(), 0, 16, pair.a().peerAddress(), pair.a().peerRkey() ^ 0x100));
        WorkCompletion wc = Completions.takeOne(pair.a().cq());

        assertThatThrownBy(() -> assertThat(wc).isSuccess())
                .hasMessageContainingAll("expected the completion to have status IBV_WC_SUCCESS (success)",
                        "but it has IBV_WC_REM_ACCESS_ERR (remote access error)",
                        "completes ibv_post_send on rxe0 QP 0x", "SendWr{wr_id=42, RDMA_READ",
                        "remote_addr=0x80000000");
    }

    @Test
    void opcodeByteLenAndImmediateFailuresNameTheField() {
        WorkCompletion recv = completion(WcStatus.SUCCESS, WcOpcode.RECV, 64, 7, WcFlag.WITH_IMM.bit());
        assertThat(recv).isSuccess().hasOpcode(WcOpcode.RECV).hasByteLen(64).hasImmData(7);

        assertThatThrownBy(() -> assertThat(recv).hasOpcode(WcOpcode.RECV_RDMA_WITH_IMM))
                .hasMessageContaining("opcode IBV_WC_RECV_RDMA_WITH_IMM but it has IBV_WC_RECV");
        assertThatThrownBy(() -> assertThat(recv).hasByteLen(65)).hasMessageContaining("byte_len 65 but it has byte_len 64");
        assertThatThrownBy(() -> assertThat(recv).hasImmData(8)).hasMessageContaining("imm_data 0x8 but it has imm_data 0x7");
        WorkCompletion plain = completion(WcStatus.SUCCESS, WcOpcode.RECV, 64, 0, 0);
        assertThatThrownBy(() -> assertThat(plain).hasImmData(0)).hasMessageContaining("no IBV_WC_WITH_IMM flag");
    }

    @Test
    void aCqWithTooFewCompletionsSaysHowManyCameAndWhich(Context a, Context b) {
        QpPair pair = QpPair.rc(a, b);
        pair.b().qp().postRecv(RecvWr.of(1, pair.b().mr(), 0, 64));
        pair.a().qp().postSend(SendWr.send(2, pair.a().mr(), 0, 64));

        assertThatThrownBy(() -> assertThat(pair.a().cq()).hasCompletions(2))
                .hasMessageContainingAll("expected 2 completion(s) on CQ of 256 entries on rxe0 but only 1 arrived",
                        "IBV_WC_SUCCESS (success): wr_id=2 opcode=IBV_WC_SEND");
        assertThatThrownBy(() -> assertThat(pair.b().cq()).hasCompletions(WcStatus.WR_FLUSH_ERR))
                .hasMessageContainingAll("completion 1 of 1", "expected IBV_WC_WR_FLUSH_ERR (Work Request Flushed Error)",
                        "IBV_WC_SUCCESS (success): wr_id=1 opcode=IBV_WC_RECV byte_len=64");
        assertThat(pair.a().cq()).hasNoCompletions();
    }

    @Test
    void aQpInTheWrongStateIsNamedWithItsIbvState(Context a, Context b) {
        QpPair pair = QpPair.rc(a, b);
        assertThat(pair.a().qp()).isInState(QpState.RTS);
        assertThatThrownBy(() -> assertThat(pair.a().qp()).isInState(QpState.ERR))
                .hasMessageContaining("to be in IBV_QPS_ERR but it is in IBV_QPS_RTS");
    }

    @Test
    void segmentsShowTheFirstDifferenceInHex() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment memory = arena.allocate(32);
            memory.asSlice(8, 4).fill((byte) 0xAB);
            assertThat(memory).hasBytesAt(8, (byte) 0xAB, (byte) 0xAB).isFilledWith(12, 4, (byte) 0);
            assertThatThrownBy(() -> assertThat(memory).hasBytesAt(10, (byte) 0xAB, (byte) 0xAB, (byte) 0xAB))
                    .hasMessageContainingAll("first difference at offset 12 (0xc): expected 0xab but was 0x00",
                            "expected at 10: ab ab ab", "actual   at 10: ab ab 00");
            assertThatThrownBy(() -> assertThat(memory).hasLongAt(0, 5)).hasMessageContaining("to be 5 (0x5) but it is 0 (0x0)");
        }
    }
}
