package com.example;

import static org.roce4j.testkit.RoceAssertions.assertThat;

import org.junit.jupiter.api.Test;
import org.roce4j.testkit.Completions;
import org.roce4j.testkit.EmulatedFabric;
import org.roce4j.testkit.QpPair;
import org.roce4j.verbs.Context;
import org.roce4j.verbs.RecvWr;
import org.roce4j.verbs.SendWr;
import org.roce4j.verbs.WcOpcode;
import org.roce4j.verbs.WcStatus;
import org.roce4j.verbs.WrOpcode;

/** What a user writes: one annotation, contexts as parameters, one line to connect, AssertJ. */
@EmulatedFabric(nodes = 2, mtu = 1024, drop = 0.05)
class RdmaWriteTest {

    @Test
    void aWriteWithImmediateLandsAndWakesTheReceiver(Context a, Context b) {
        QpPair pair = QpPair.rc(a, b);
        pair.a().buffer().asSlice(0, 4096).fill((byte) 0x42);
        pair.b().qp().postRecv(RecvWr.of(1, pair.b().mr(), 0, 0));
        pair.a().qp().postSend(SendWr.rdmaWrite(2, pair.a().mr(), 0, 4096, pair.a().peerAddress(), pair.a().peerRkey())
                .opcode(WrOpcode.RDMA_WRITE_WITH_IMM).immData(7));

        assertThat(pair.a().cq()).hasCompletions(WcStatus.SUCCESS);
        assertThat(Completions.takeOne(pair.b().cq())).isSuccess().hasOpcode(WcOpcode.RECV_RDMA_WITH_IMM)
                .hasByteLen(4096).hasImmData(7);
        assertThat(pair.b().buffer()).isFilledWith(0, 4096, (byte) 0x42);
    }

    @Test
    void aSendNeedsAPostedReceive(Context a, Context b) {
        QpPair pair = QpPair.rc(a, b);
        pair.b().qp().postRecv(RecvWr.of(10, pair.b().mr(), 0, 64));
        pair.a().qp().postSend(SendWr.send(11, pair.a().mr(), 0, 64));

        assertThat(Completions.takeOne(pair.b().cq())).isSuccess().hasOpcode(WcOpcode.RECV).hasByteLen(64).hasWrId(10);
        assertThat(Completions.takeOne(pair.a().cq())).isSuccess().hasOpcode(WcOpcode.SEND).hasWrId(11);
    }
}
