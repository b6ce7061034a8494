package org.roce4j.testkit;

import static org.roce4j.testkit.RoceAssertions.assertThat;

import java.lang.foreign.ValueLayout;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.roce4j.emulator.DeviceProfile;
import org.roce4j.emulator.RnicCounter;
import org.roce4j.emulator.fabric.Fabric;
import org.roce4j.verbs.Context;
import org.roce4j.verbs.Device;
import org.roce4j.verbs.QpState;
import org.roce4j.verbs.QpType;
import org.roce4j.verbs.RecvWr;
import org.roce4j.verbs.SendWr;
import org.roce4j.verbs.WcOpcode;
import org.roce4j.verbs.WcStatus;
import org.roce4j.verbs.WorkCompletion;

@EmulatedFabric
class EmulatedFabricTest {

    @Test
    void theKthParameterOfATypeIsNodeK(Context a, Context b, Device first, RdmaNode firstNode, RdmaNode secondNode) {
        assertThat(a.device().name()).isEqualTo("rxe0");
        assertThat(b.device().name()).isEqualTo("rxe1");
        assertThat(first.name()).isEqualTo("rxe0");
        assertThat(firstNode.name()).isEqualTo("rxe0");
        assertThat(secondNode.name()).isEqualTo("rxe1");
        assertThat(secondNode.context()).isSameAs(b);
        assertThat(a.queryGid(1, 1)).isEqualTo(org.roce4j.verbs.Gid.parse("::ffff:10.0.0.1"));
    }

    @Test
    @EmulatedFabric(nodes = 3, mtu = 4096)
    void theMethodsAnnotationWins(TestFabric fabric, Context a, Context b, Context c) {
        assertThat(fabric.nodes()).extracting(RdmaNode::name).containsExactly("rxe0", "rxe1", "rxe2");
        assertThat(c.queryPort(1).activeMtu().bytes()).isEqualTo(4096);
        assertThat(fabric.node(2).gid()).isEqualTo(org.roce4j.verbs.Gid.parse("::ffff:10.0.0.3"));
    }

    @Test
    void anRcPairConnectedInOneLineCarriesAWriteWithImmediate(Context a, Context b) {
        QpPair pair = QpPair.rc(a, b);
        pair.a().buffer().asSlice(0, 64).fill((byte) 0x5A);
        pair.b().qp().postRecv(RecvWr.of(9, pair.b().mr(), 0, 0));
        pair.a().qp().postSend(SendWr.rdmaWrite(1, pair.a().mr(), 0, 64, pair.a().peerAddress(), pair.a().peerRkey())
                .opcode(org.roce4j.verbs.WrOpcode.RDMA_WRITE_WITH_IMM).immData(7));

        assertThat(Completions.takeOne(pair.a().cq())).isSuccess().hasOpcode(WcOpcode.RDMA_WRITE).hasWrId(1);
        assertThat(Completions.takeOne(pair.b().cq())).isSuccess().hasOpcode(WcOpcode.RECV_RDMA_WITH_IMM)
                .hasByteLen(64).hasImmData(7).hasWrId(9).hasQpNum(pair.b().qp().qpNum());
        assertThat(pair.b().buffer()).isFilledWith(0, 64, (byte) 0x5A).hasBytesAt(64, (byte) 0);
    }

    @Test
    void aUdPairDeliversADatagramWithItsGrh(Context a, Context b) {
        QpPair pair = QpPair.ud(a, b);
        pair.b().qp().postRecv(RecvWr.of(5, pair.b().mr(), 0, 40 + 100));
        pair.a().qp().postSend(SendWr.send(6, pair.a().mr(), 0, 100).ud(pair.a().ahToPeer(), pair.a().peerQpNum(),
                QpPair.UD_QKEY));

        assertThat(pair.a().cq()).hasCompletions(WcStatus.SUCCESS);
        assertThat(Completions.takeOne(pair.b().cq())).isSuccess().hasOpcode(WcOpcode.RECV).hasByteLen(140)
                .hasSrcQp(pair.a().qp().qpNum()).hasFlag(org.roce4j.verbs.WcFlag.GRH);
    }

    @Test
    @EmulatedFabric(drop = 0.2, duplicate = 0.05, reorder = 0.1, profile = DeviceProfile.RXE_6_12)
    void underSeededLossEveryWriteStillCompletesOnce(TestFabric fabric, Context a, Context b) {
        QpPair pair = QpPair.rc(a, b);
        for (int i = 0; i < 50; i++) {
            pair.a().buffer().set(ValueLayout.JAVA_BYTE, i, (byte) i);
            pair.a().qp().postSend(SendWr.rdmaWrite(i, pair.a().mr(), i, 1, pair.a().peerAddress() + i,
                    pair.a().peerRkey()));
        }
        List<WorkCompletion> done = assertThat(pair.a().cq()).hasCompletions(50).allSucceeded().polled();
        assertThat(done).extracting(WorkCompletion::wrId).containsExactlyElementsOf(
                java.util.stream.LongStream.range(0, 50).boxed().toList());
        assertThat(fabric.fabric().faultCounters().dropped()).isPositive();
        assertThat(fabric.node(0).rnic().counter(RnicCounter.RETRANSMITTED_PACKETS)).isPositive();
        for (int i = 0; i < 50; i++) {
            assertThat(pair.b().buffer()).hasBytesAt(i, (byte) i);
        }
    }

    @Test
    void aRemoteAccessErrorMovesTheQpToErr(Context a, Context b) {
        QpPair pair = QpPair.rc(a, b);
        pair.a().qp().postSend(SendWr.rdmaWrite(3, pair.a().mr(), 0, 8, pair.a().peerAddress(), pair.a().peerRkey() + 1));
        assertThat(pair.a().cq()).hasCompletions(WcStatus.REM_ACCESS_ERR);
        assertThat(pair.a().qp()).isInState(QpState.ERR);
    }

    @Test
    void theFabricParameterIsTheDeterministicFabric(Fabric fabric, TestFabric test) {
        assertThat(fabric.isDeterministic()).isTrue();
        assertThat(test.fabric()).isSameAs(fabric);
        assertThat(test.pcap().toString()).endsWith("EmulatedFabricTest/theFabricParameterIsTheDeterministicFabric.pcap");
    }

    @Test
    @EmulatedFabric(seed = 42)
    void aFixedSeedGivesTheSameFirstPsnsAndRandomValues(TestFabric fabric, Context a, Context b) {
        assertThat(fabric.seed()).isEqualTo(Long.getLong(FabricSettings.SEED_PROPERTY, 42));
        QpPair pair = QpPair.rc(a, b);
        int psn = pair.a().qp().query(java.util.EnumSet.of(org.roce4j.verbs.QpAttrMask.SQ_PSN)).sqPsn();
        java.util.SplittableRandom again = new java.util.SplittableRandom(42 ^ 0x5DEECE66DL);
        again.split();
        assertThat(psn).isEqualTo(again.split().nextInt(1 << 24));
    }
}
