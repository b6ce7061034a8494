package com.example;

import static org.roce4j.testkit.RoceAssertions.assertThat;

import org.junit.jupiter.api.Test;
import org.roce4j.testkit.Completions;
import org.roce4j.testkit.EmulatedFabric;
import org.roce4j.testkit.QpPair;
import org.roce4j.verbs.*;

@EmulatedFabric(nodes = 2, mtu = 1024, drop = 0.05)   // 5% of all frames lost, seeded
class NotifierTest {

    @Test
    void theWriteLandsAndWakesTheReceiver(Context a, Context b) {
        QpPair pair = QpPair.rc(a, b);                  // PD, CQ, buffer, QPN/PSN/GID/rkey exchanged, RTS
        pair.a().buffer().asSlice(0, 4096).fill((byte) 0x42);
        pair.b().qp().postRecv(RecvWr.of(1, pair.b().mr(), 0, 0));

        new Notifier(pair.a().qp(), pair.a().mr()).writeAndNotify(4096, pair.a().peerAddress(), pair.a().peerRkey(), 7);

        assertThat(pair.a().cq()).hasCompletions(WcStatus.SUCCESS);
        assertThat(Completions.takeOne(pair.b().cq())).isSuccess().hasOpcode(WcOpcode.RECV_RDMA_WITH_IMM)
                .hasByteLen(4096).hasImmData(7);
        assertThat(pair.b().buffer()).isFilledWith(0, 4096, (byte) 0x42);
    }

    @Test
    void yourCodeAndTheVerbsApiRunAsModules() {                   // module-info.java is used, not ignored
        assertThat(Notifier.class.getModule().getName()).isEqualTo("com.example.rdma");
        assertThat(Context.class.getModule().getName()).isEqualTo("org.roce4j.verbs");
    }
}
