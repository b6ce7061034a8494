package org.roce4j.emulator;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.roce4j.emulator.fabric.Fabric;
import org.roce4j.verbs.Ah;
import org.roce4j.verbs.AhAttr;
import org.roce4j.verbs.Mr;
import org.roce4j.verbs.Mtu;
import org.roce4j.verbs.Qp;
import org.roce4j.verbs.QpState;
import org.roce4j.verbs.QpType;
import org.roce4j.verbs.RecvWr;
import org.roce4j.verbs.SendWr;
import org.roce4j.verbs.WcStatus;
import org.roce4j.verbs.WorkCompletion;
import org.roce4j.verbs.WrOpcode;

/**
 * How the requester's own errors reach the poller on each device profile: the default (and rxe 6.1)
 * completes the failing WQE with its error and flushes what follows; rxe 6.12 flushes everything not
 * yet completed ({@link Quirk#REQUESTER_ERRORS_FLUSH_THE_SEND_QUEUE}). Each test runs under the profile
 * that has the quirk and under {@link DeviceProfile#LINUX}, which has none.
 */
class RequesterQuirksTest {

    /** A SEND that goes out (1), one with a deregistered lkey (2), a SEND behind it (3): what A's CQ gets. */
    private static List<WorkCompletion> sendWithDeregisteredLkeyBetweenTwoSends(DeviceProfile profile) {
        try (TwoNodes nodes = new TwoNodes(Fabric.deterministic(), profile)) {
            Qp[] pair = nodes.connectedPair(QpType.RC, Mtu.MTU_1024);
            pair[1].postRecv(RecvWr.of(10, nodes.b.mr, 0, 64));
            Mr gone = nodes.a.pd.regMr(nodes.a.memory.asSlice(4096, 64), TwoNodes.ALL_ACCESS);
            long address = gone.address();
            int lkey = gone.lkey();
            gone.close();
            pair[0].postSend(SendWr.send(1, nodes.a.mr, 0, 64));
            pair[0].postSend(new SendWr().wrId(2).sge(address, 64, lkey).signaled(true));
            pair[0].postSend(SendWr.send(3, nodes.a.mr, 0, 64));
            List<WorkCompletion> completions = nodes.a.pollAll();
            assertThat(pair[0].state()).isEqualTo(QpState.ERR);
            return completions;
        }
    }

    @OnEveryProfile
    @DisplayName("a send SGE with a deregistered lkey: LOC_PROT_ERR (IBTA 10.6.3.2), LOC_QP_OP_ERR on rxe 6.1 "
            + "(copy_data's lookup_mr -EINVAL); rxe 6.12 flushes the SEND in flight before it, it and the one after")
    void unknownSendLkeyIsLocQpOpErrOrFlushed(DeviceProfile profile) {
        List<WorkCompletion> completions = sendWithDeregisteredLkeyBetweenTwoSends(profile);
        List<WcStatus> expected = switch (profile) {
            case LINUX -> List.of(WcStatus.SUCCESS, WcStatus.LOC_PROT_ERR, WcStatus.WR_FLUSH_ERR);
            case RXE_6_1 -> List.of(WcStatus.SUCCESS, WcStatus.LOC_QP_OP_ERR, WcStatus.WR_FLUSH_ERR);
            case RXE_6_12 -> List.of(WcStatus.WR_FLUSH_ERR, WcStatus.WR_FLUSH_ERR, WcStatus.WR_FLUSH_ERR);
        };
        assertThat(completions).extracting(WorkCompletion::wrId).containsExactly(1L, 2L, 3L);
        assertThat(completions).extracting(WorkCompletion::status).isEqualTo(expected);
        assertThat(profile.model().has(Quirk.UNKNOWN_SEND_LKEY_IS_LOC_QP_OP_ERR)).isEqualTo(profile == DeviceProfile.RXE_6_1);
    }

    @ParameterizedTest
    @EnumSource(value = DeviceProfile.class, names = {"LINUX", "RXE_6_12"})
    @DisplayName("a send SGE beyond its region: LOC_PROT_ERR, then the next WR flushed; rxe 6.12 (rxe_qp_error "
            + "from the requester) flushes both")
    void requesterErrorsFlushTheSendQueue(DeviceProfile profile) {
        try (TwoNodes nodes = new TwoNodes(Fabric.deterministic(), profile)) {
            Qp[] pair = nodes.connectedPair(QpType.RC, Mtu.MTU_1024);
            pair[1].postRecv(RecvWr.of(10, nodes.b.mr, 0, 64));
            pair[0].postSend(SendWr.send(3, nodes.a.mr, nodes.a.mr.length() - 32, 64));
            pair[0].postSend(SendWr.send(4, nodes.a.mr, 0, 64));
            WcStatus first = profile == DeviceProfile.LINUX ? WcStatus.LOC_PROT_ERR : WcStatus.WR_FLUSH_ERR;
            assertThat(nodes.a.pollAll()).extracting(WorkCompletion::wrId, WorkCompletion::status)
                    .containsExactly(org.assertj.core.groups.Tuple.tuple(3L, first),
                            org.assertj.core.groups.Tuple.tuple(4L, WcStatus.WR_FLUSH_ERR));
            assertThat(pair[0].state()).isEqualTo(QpState.ERR);
        }
    }

    @ParameterizedTest
    @EnumSource(value = DeviceProfile.class, names = {"LINUX", "RXE_6_12"})
    @DisplayName("an opcode the QP type does not allow (RDMA_READ on UC): LOC_QP_OP_ERR (rxe_req.c next_opcode); "
            + "WR_FLUSH_ERR on rxe 6.12")
    void opcodeNotAllowedIsFlushedOnRxe612(DeviceProfile profile) {
        try (TwoNodes nodes = new TwoNodes(Fabric.deterministic(), profile)) {
            Qp[] pair = nodes.connectedPair(QpType.UC, Mtu.MTU_1024);
            pair[0].postSend(SendWr.rdmaRead(77, nodes.a.mr, 0, 8, nodes.b.mr.address(), nodes.b.mr.rkey()));
            WcStatus expected = profile == DeviceProfile.LINUX ? WcStatus.LOC_QP_OP_ERR : WcStatus.WR_FLUSH_ERR;
            assertThat(nodes.a.pollAll()).extracting(WorkCompletion::status).containsExactly(expected);
        }
    }

    @ParameterizedTest
    @EnumSource(value = DeviceProfile.class, names = {"LINUX", "RXE_6_12"})
    @DisplayName("rxe completer: a READ into a region without LOCAL_WRITE is LOC_PROT_ERR on every profile — the "
            + "completer's error, not the requester's, so rxe 6.12 does not flush it")
    void readIntoRegionWithoutLocalWriteIsLocProtErrEverywhere(DeviceProfile profile) {
        try (TwoNodes nodes = new TwoNodes(Fabric.deterministic(), profile)) {
            Qp[] pair = nodes.connectedPair(QpType.RC, Mtu.MTU_1024);
            Mr readOnly = nodes.a.pd.regMr(nodes.a.memory.asSlice(8192, 64), java.util.EnumSet.noneOf(
                    org.roce4j.verbs.AccessFlag.class));
            pair[0].postSend(SendWr.rdmaRead(4, readOnly, 0, 8, nodes.b.mr.address(), nodes.b.mr.rkey()));
            assertThat(nodes.a.pollAll()).extracting(WorkCompletion::status).containsExactly(WcStatus.LOC_PROT_ERR);
        }
    }

    @OnEveryProfile
    @DisplayName("LOCAL_INV of an ibv_reg_mr region: SUCCESS and its rkey refused after (IBTA 10.6.5); rxe invalidates "
            + "only MWs and fast-reg MRs: LOC_QP_OP_ERR on 6.1, WR_FLUSH_ERR on 6.12, the region still usable")
    void ordinaryMrsCannotBeInvalidated(DeviceProfile profile) {
        try (TwoNodes nodes = new TwoNodes(Fabric.deterministic(), profile)) {
            Qp[] pair = nodes.connectedPair(QpType.RC, Mtu.MTU_1024);
            pair[0].postSend(new SendWr().wrId(4).opcode(WrOpcode.LOCAL_INV).invalidateRkey(nodes.a.mr.rkey())
                    .signaled(true));
            WcStatus expected = switch (profile) {
                case LINUX -> WcStatus.SUCCESS;
                case RXE_6_1 -> WcStatus.LOC_QP_OP_ERR;
                case RXE_6_12 -> WcStatus.WR_FLUSH_ERR;
            };
            assertThat(nodes.a.pollAll()).extracting(WorkCompletion::status).containsExactly(expected);
            // The region: invalidated (a WRITE from B through its rkey is refused) or still valid.
            Qp[] back = nodes.connectedPair(QpType.RC, Mtu.MTU_1024);
            back[1].postSend(SendWr.rdmaWrite(5, nodes.b.mr, 0, 8, nodes.a.mr.address(), nodes.a.mr.rkey()));
            assertThat(nodes.b.pollAll()).extracting(WorkCompletion::status).containsExactly(
                    profile == DeviceProfile.LINUX ? WcStatus.REM_ACCESS_ERR : WcStatus.SUCCESS);
        }
    }

    @OnEveryProfile
    @DisplayName("IBTA 10.2.5: a WR Q_Key with bit 31 set sends the QP's own Q_Key; rxe sends it as given and the "
            + "receiver drops the datagram (Q_Key mismatch)")
    void wrQkeyHighBitSentAsGiven(DeviceProfile profile) {
        try (TwoNodes nodes = new TwoNodes(Fabric.deterministic(), profile)) {
            Qp[] pair = nodes.connectedPair(QpType.UD, Mtu.MTU_1024);
            pair[1].postRecv(RecvWr.of(1, nodes.b.mr, 0, 1024));
            Ah ah = nodes.a.pd.createAh(AhAttr.of(nodes.b.gid(), 1, 1));
            int qpsQkey = pair[0].query(java.util.EnumSet.of(org.roce4j.verbs.QpAttrMask.QKEY)).qkey();
            assertThat(pair[1].query(java.util.EnumSet.of(org.roce4j.verbs.QpAttrMask.QKEY)).qkey()).isEqualTo(qpsQkey);
            pair[0].postSend(SendWr.send(2, nodes.a.mr, 0, 10).ud(ah, pair[1].qpNum(), 0x80000000 | 0x1234));
            assertThat(nodes.a.pollAll()).extracting(WorkCompletion::status).containsExactly(WcStatus.SUCCESS);
            boolean sentAsGiven = profile != DeviceProfile.LINUX;
            assertThat(nodes.b.pollAll()).hasSize(sentAsGiven ? 0 : 1);
            assertThat(nodes.rnicB.counter(RnicCounter.DROPPED_QKEY_VIOLATION)).isEqualTo(sentAsGiven ? 1 : 0);
        }
    }
}
