package org.roce4j.emulator;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.MemorySegment;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.roce4j.emulator.fabric.Fabric;
import org.roce4j.verbs.QpEx;
import org.roce4j.verbs.ScatterGatherList;
import org.roce4j.verbs.SendFlag;
import org.roce4j.verbs.WcStatus;
import org.roce4j.verbs.WorkCompletion;

/** The ibv_wr_* builder's quirks of rdma-core 44's rxe provider, under each profile, and where roce4j differs from rxe. */
class BuilderQuirksTest {
    @ParameterizedTest(name = "{0}: {1}")
    @CsvSource({"LINUX, SUCCESS", "RXE_6_1, LOC_QP_OP_ERR", "RXE_6_12, WR_FLUSH_ERR"})
    void wrSetSgeListLengthIsCountTimesFirst(DeviceProfile profile, WcStatus expected) {
        // Quirk.WR_SET_SGE_LIST_LENGTH_IS_COUNT_TIMES_FIRST: 30 + 20 bytes listed, 2 x 30 = 60 set.
        try (TwoNodes nodes = new TwoNodes(Fabric.deterministic(), profile)) {
            QpEx qp = AtomicWriteTest.connectedEx(nodes);
            MemorySegment.copy(new byte[50], 0, nodes.b.memory, java.lang.foreign.ValueLayout.JAVA_BYTE, 0, 50);
            nodes.a.memory.asSlice(0, 64).fill((byte) 7);
            qp.wrStart();
            qp.wrId(10);
            qp.wrFlags(SendFlag.SIGNALED.bit());
            qp.wrRdmaWrite(nodes.b.mr.rkey(), nodes.b.mr.address());
            qp.wrSetSgeList(new ScatterGatherList().add(nodes.a.mr, 0, 30).add(nodes.a.mr, 32, 20));
            assertThat(qp.wrComplete()).isZero();
            WorkCompletion wc = nodes.a.pollAll().getFirst();
            assertThat(wc.wrId()).isEqualTo(10);
            assertThat(wc.status()).isEqualTo(expected);
            if (expected == WcStatus.SUCCESS) {
                assertThat(wc.byteLen()).isEqualTo(50);
                assertThat(nodes.b.memory.get(java.lang.foreign.ValueLayout.JAVA_BYTE, 49)).isEqualTo((byte) 7);
            }
        }
    }

    @ParameterizedTest
    @CsvSource({"LINUX", "RXE_6_1", "RXE_6_12"})
    void anInlineFlaggedWriteWhoseDataIsSetBySgeSendsTheSgesBytes(DeviceProfile profile) {
        try (TwoNodes nodes = new TwoNodes(Fabric.deterministic(), profile)) {
            QpEx qp = AtomicWriteTest.connectedEx(nodes);
            nodes.a.memory.asSlice(0, 64).fill((byte) 7);
            qp.wrStart();
            qp.wrId(11);
            qp.wrFlags(SendFlag.SIGNALED.bit() | SendFlag.INLINE.bit());
            qp.wrRdmaWrite(nodes.b.mr.rkey(), nodes.b.mr.address());
            qp.wrSetSge(nodes.a.mr.lkey(), nodes.a.mr.address(), 40);
            assertThat(qp.wrComplete()).isZero();
            WorkCompletion wc = nodes.a.pollAll().getFirst();
            assertThat(wc.status()).isEqualTo(WcStatus.SUCCESS);
            assertThat(wc.byteLen()).isEqualTo(40);
            byte[] written = nodes.b.memory.asSlice(0, 40).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE);
            assertThat(written).containsOnly((byte) 7);
        }
    }
}
