package org.roce4j.emulator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.EnumSet;
import java.util.List;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.roce4j.emulator.fabric.Fabric;
import org.roce4j.verbs.AccessFlag;
import org.roce4j.verbs.Ah;
import org.roce4j.verbs.AhAttr;
import org.roce4j.verbs.Cq;
import org.roce4j.verbs.Errno;
import org.roce4j.verbs.Mr;
import org.roce4j.verbs.Mtu;
import org.roce4j.verbs.Mw;
import org.roce4j.verbs.MwBind;
import org.roce4j.verbs.MwBindInfo;
import org.roce4j.verbs.MwType;
import org.roce4j.verbs.Qp;
import org.roce4j.verbs.QpAttr;
import org.roce4j.verbs.QpAttrMask;
import org.roce4j.verbs.QpCap;
import org.roce4j.verbs.QpInitAttr;
import org.roce4j.verbs.QpState;
import org.roce4j.verbs.QpType;
import org.roce4j.verbs.RecvWr;
import org.roce4j.verbs.SendFlag;
import org.roce4j.verbs.SendWr;
import org.roce4j.verbs.VerbsException;
import org.roce4j.verbs.WcStatus;
import org.roce4j.verbs.WorkCompletion;

/**
 * The verbs' rules where rxe departs from the default: a receive posted in ERR, polling an overrun CQ,
 * which modifies are legal. Each runs under the rxe profile(s) with the quirk and under
 * {@link DeviceProfile#LINUX}, which has none.
 */
class VerbsQuirksTest {

    @OnEveryProfile
    @DisplayName("WRs posted to a QP in ERR complete WR_FLUSH_ERR (rxe_post_send/rxe_post_recv); rxe 6.1 flushes "
            + "the send and never completes the receive")
    void receivesPostedInErrorAreNotFlushedOnRxe61(DeviceProfile profile) {
        try (TwoNodes nodes = new TwoNodes(Fabric.deterministic(), profile)) {
            Qp qp = nodes.connectedPair(QpType.RC, Mtu.MTU_1024)[0];
            moveTo(qp, QpState.ERR);
            qp.postSend(SendWr.send(1, nodes.a.mr, 0, 8));
            qp.postRecv(RecvWr.of(2, nodes.a.mr, 64, 8));
            List<Long> expected = profile == DeviceProfile.RXE_6_1 ? List.of(1L) : List.of(1L, 2L);
            List<WorkCompletion> completions = nodes.a.pollAll();
            assertThat(completions).extracting(WorkCompletion::wrId).isEqualTo(expected);
            assertThat(completions).allMatch(wc -> wc.status() == WcStatus.WR_FLUSH_ERR);
        }
    }

    @OnEveryProfile
    @DisplayName("after a CQ overrun (CQ_ERR), poll is EINVAL (mlx4/mlx5); rxe's poll returns what the ring holds, "
            + "and once drained the CQ takes completions again (rxe_cq_post: -EBUSY for the lost one only)")
    void pollAfterCqOverrunSucceeds(DeviceProfile profile) {
        try (TwoNodes nodes = new TwoNodes(Fabric.deterministic(), profile)) {
            Cq small = nodes.b.context.createCq(4);
            int n = small.capacity() + 1;
            Qp qa = nodes.a.createQp(QpType.UD, 16);
            Qp qb = nodes.b.pd.createQp(QpInitAttr.of(QpType.UD, nodes.b.cq, QpCap.of(16, 16))
                    .withCqs(nodes.b.cq, small));
            TwoNodes.connect(qa, 0, null, 0, 0, Mtu.MTU_1024);
            TwoNodes.connect(qb, 0, null, 0, 0, Mtu.MTU_1024);
            Ah ah = nodes.a.pd.createAh(AhAttr.of(nodes.b.gid(), 1, 1));
            for (int i = 0; i < n; i++) {
                qb.postRecv(RecvWr.of(i, nodes.b.mr, 128L * i, 128));
                qa.postSend(SendWr.send(100 + i, nodes.a.mr, 0, 8).ud(ah, qb.qpNum(), 0x11111111));
            }
            assertThat(nodes.a.pollAll()).hasSize(n);
            WorkCompletion[] out = new WorkCompletion[16];
            if (profile == DeviceProfile.LINUX) {
                assertThatThrownBy(() -> small.poll(out)).isInstanceOfSatisfying(VerbsException.class,
                        e -> assertThat(e.errno()).isEqualTo(Errno.EINVAL));
                return;
            }
            assertThat(small.poll(out)).isEqualTo(small.capacity());
            assertThat(qb.state()).as("the receive that was lost took its QP to ERR").isEqualTo(QpState.ERR);
            moveTo(qb, QpState.RESET);
            TwoNodes.connect(qb, 0, null, 0, 0, Mtu.MTU_1024);
            qb.postRecv(RecvWr.of(99, nodes.b.mr, 0, 128));
            qa.postSend(SendWr.send(200, nodes.a.mr, 0, 8).ud(ah, qb.qpNum(), 0x11111111));
            assertThat(nodes.a.pollAll()).hasSize(1);
            assertThat(small.poll(out)).as("room again: the next receive's completion fits").isEqualTo(1);
            assertThat(out[0].wrId()).isEqualTo(99);
        }
    }

    @OnEveryProfile
    @DisplayName("UC SQD -> SQD with an optional attribute (ACCESS_FLAGS) succeeds (IBTA 11.2.5.3); rxe answers "
            + "EINVAL; with STATE alone it succeeds everywhere")
    void ucSqdToSqdRefusesOptionalAttributes(DeviceProfile profile) {
        try (TwoNodes nodes = new TwoNodes(Fabric.deterministic(), profile)) {
            Qp qp = nodes.connectedPair(QpType.UC, Mtu.MTU_1024)[0];
            moveTo(qp, QpState.SQD);
            moveTo(qp, QpState.SQD);
            QpAttr withAccess = new QpAttr().qpState(QpState.SQD).qpAccessFlags(EnumSet.of(AccessFlag.REMOTE_WRITE));
            var mask = EnumSet.of(QpAttrMask.STATE, QpAttrMask.ACCESS_FLAGS);
            if (profile == DeviceProfile.LINUX) {
                qp.modify(withAccess, mask);
            } else {
                assertThatThrownBy(() -> qp.modify(withAccess, mask)).isInstanceOfSatisfying(VerbsException.class,
                        e -> assertThat(e.errno()).isEqualTo(Errno.EINVAL));
            }
            assertThat(qp.state()).isEqualTo(QpState.SQD);
        }
    }

    @ParameterizedTest
    @EnumSource(value = DeviceProfile.class, names = {"LINUX", "RXE_6_12"})
    @DisplayName("ib_modify_qp_is_ok: TIMEOUT in RTS without STATE is EINVAL; rxe 6.12 applies a stateless modify "
            + "unchecked (the QP stays in RTS), and still refuses RTS -> RTS with STATE and TIMEOUT")
    void modifyWithoutStateSkipsTheTransitionTable(DeviceProfile profile) {
        try (TwoNodes nodes = new TwoNodes(Fabric.deterministic(), profile)) {
            Qp qp = nodes.connectedPair(QpType.RC, Mtu.MTU_1024)[0];
            if (profile == DeviceProfile.LINUX) {
                assertThatThrownBy(() -> qp.modify(new QpAttr().timeout(9))).isInstanceOfSatisfying(
                        VerbsException.class, e -> assertThat(e.errno()).isEqualTo(Errno.EINVAL));
            } else {
                qp.modify(new QpAttr().timeout(9));
                assertThat(qp.query(EnumSet.of(QpAttrMask.TIMEOUT)).timeout()).isEqualTo(9);
            }
            assertThat(qp.state()).isEqualTo(QpState.RTS);
            assertThatThrownBy(() -> qp.modify(new QpAttr().qpState(QpState.RTS).timeout(10),
                    EnumSet.of(QpAttrMask.STATE, QpAttrMask.TIMEOUT))).isInstanceOfSatisfying(VerbsException.class,
                    e -> assertThat(e.errno()).isEqualTo(Errno.EINVAL));
        }
    }

    @OnEveryProfile
    @DisplayName("ibv_reg_mr: a region without remote rights has its lkey as rkey (mlx5, rxe since 6.2); rxe 6.1 gives "
            + "rkey 0; either way a remote WRITE through it is refused")
    void rkeyOfARegionWithoutRemoteRights(DeviceProfile profile) {
        try (TwoNodes nodes = new TwoNodes(Fabric.deterministic(), profile)) {
            Mr local = nodes.b.pd.regMr(nodes.b.memory.asSlice(0, 64), EnumSet.of(AccessFlag.LOCAL_WRITE));
            assertThat(local.rkey()).isEqualTo(profile == DeviceProfile.RXE_6_1 ? 0 : local.lkey());

            Qp qp = nodes.connectedPair(QpType.RC, Mtu.MTU_1024)[0];
            qp.postSend(SendWr.rdmaWrite(1, nodes.a.mr, 0, 8, local.address(), local.lkey()));
            assertThat(nodes.a.pollAll()).extracting(WorkCompletion::status).containsExactly(WcStatus.REM_ACCESS_ERR);
        }
    }


    @OnEveryProfile
    @DisplayName("IBV_ACCESS_ZERO_BASED is a window's right: ibv_reg_mr with it is EOPNOTSUPP (rxe_reg_user_mr, 6.4 on); "
            + "kernel 6.1 registers the region, and a window bound to it completes MW_BIND_ERR (rxe_check_bind_mw)")
    void zeroBasedRegionsRegisteredOnRxe61(DeviceProfile profile) {
        try (TwoNodes nodes = new TwoNodes(Fabric.deterministic(), profile)) {
            EnumSet<AccessFlag> zeroBased = EnumSet.of(AccessFlag.LOCAL_WRITE, AccessFlag.MW_BIND, AccessFlag.ZERO_BASED);
            if (profile != DeviceProfile.RXE_6_1) {
                assertThatThrownBy(() -> nodes.b.pd.regMr(nodes.b.memory.asSlice(0, 4096), zeroBased))
                        .isInstanceOfSatisfying(VerbsException.class, e -> assertThat(e.errno()).isEqualTo(Errno.EOPNOTSUPP));
                return;
            }
            Mr region = nodes.b.pd.regMr(nodes.b.memory.asSlice(0, 4096), zeroBased);
            Qp qp = nodes.connectedPair(QpType.RC, Mtu.MTU_1024)[1];
            Mw mw = nodes.b.pd.allocMw(MwType.TYPE_1);
            qp.bindMw(mw, new MwBind(7, SendFlag.SIGNALED.bit(),
                    new MwBindInfo(region, region.address(), 1024, EnumSet.of(AccessFlag.REMOTE_READ))));
            assertThat(nodes.b.pollAll()).extracting(WorkCompletion::status).containsExactly(WcStatus.MW_BIND_ERR);
        }
    }
    private static void moveTo(Qp qp, QpState state) {
        qp.modify(new QpAttr().qpState(state), EnumSet.of(QpAttrMask.STATE));
    }
}
