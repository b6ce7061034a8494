package org.roce4j.testkit;

import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.roce4j.testkit.RoceAssertions.assertThat;

import java.util.EnumSet;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.roce4j.verbs.Context;
import org.roce4j.verbs.Cq;
import org.roce4j.verbs.Errno;
import org.roce4j.verbs.Mr;
import org.roce4j.verbs.Mtu;
import org.roce4j.verbs.Pd;
import org.roce4j.verbs.Qp;
import org.roce4j.verbs.QpAttr;
import org.roce4j.verbs.QpAttrMask;
import org.roce4j.verbs.QpBringUp;
import org.roce4j.verbs.QpCap;
import org.roce4j.verbs.QpInitAttr;
import org.roce4j.verbs.QpState;
import org.roce4j.verbs.QpType;
import org.roce4j.verbs.RecvWr;
import org.roce4j.verbs.SendWr;
import org.roce4j.verbs.VerbsException;
import org.roce4j.verbs.WcOpcode;

/** {@link QpBringUp} against the emulated RNIC: the QPs it brings up carry traffic, and query back its values. */
@EmulatedFabric
class QpBringUpOnTheEmulatorTest {
    private static final QpBringUp BRING_UP = QpBringUp.pingpong().withPathMtu(Mtu.MTU_4096).withRdAtomic(4, 8);

    private record Side(Pd pd, Cq cq, Qp qp, Mr mr) implements AutoCloseable {
        @Override
        public void close() {
            qp.close();
            mr.close();
            cq.close();
            pd.close();
        }

        static Side of(Context context, QpType type) {
            Pd pd = context.allocPd();
            Cq cq = context.createCq(16);
            Qp qp = pd.createQp(QpInitAttr.of(type, cq, QpCap.of(4, 4)));
            return new Side(pd, cq, qp, pd.regMr(java.lang.foreign.Arena.ofAuto().allocate(256, 8),
                    EnumSet.of(org.roce4j.verbs.AccessFlag.LOCAL_WRITE)));
        }
    }

    private static QpBringUp.Remote remoteOf(Side side, Context context, int psn) {
        return new QpBringUp.Remote(side.qp().qpNum(), psn, context.queryGid(1, 1));
    }

    @Test
    @DisplayName("RC connect: both QPs in RTS with the peer's QPN and PSN, the MTU, depths and timers asked for; a SEND completes")
    void rcConnectBringsUpAWorkingPair(Context a, Context b) {
        try (Side sa = Side.of(a, QpType.RC); Side sb = Side.of(b, QpType.RC)) {
            BRING_UP.connect(sa.qp(), 0x000100, remoteOf(sb, b, 0xFFFFF0));
            BRING_UP.connect(sb.qp(), 0xFFFFF0, remoteOf(sa, a, 0x000100));

            QpAttr attr = sa.qp().query(EnumSet.allOf(QpAttrMask.class));
            assertThat(sa.qp()).isInState(QpState.RTS);
            org.assertj.core.api.Assertions.assertThat(attr.destQpNum()).isEqualTo(sb.qp().qpNum());
            org.assertj.core.api.Assertions.assertThat(attr.rqPsn()).isEqualTo(0xFFFFF0);
            org.assertj.core.api.Assertions.assertThat(attr.sqPsn()).isEqualTo(0x000100);
            org.assertj.core.api.Assertions.assertThat(attr.pathMtu()).isEqualTo(Mtu.MTU_4096);
            org.assertj.core.api.Assertions.assertThat(attr.maxRdAtomic()).isEqualTo(4);
            org.assertj.core.api.Assertions.assertThat(attr.maxDestRdAtomic()).isEqualTo(8);
            org.assertj.core.api.Assertions.assertThat(attr.timeout()).isEqualTo(14);
            org.assertj.core.api.Assertions.assertThat(attr.ahAttr().dgid()).isEqualTo(b.queryGid(1, 1));

            sb.qp().postRecv(RecvWr.of(2, sb.mr(), 0, 64));
            sa.qp().postSend(SendWr.send(1, sa.mr(), 0, 64));
            assertThat(Completions.takeOne(sa.cq())).isSuccess().hasOpcode(WcOpcode.SEND).hasWrId(1);
            assertThat(Completions.takeOne(sb.cq())).isSuccess().hasOpcode(WcOpcode.RECV).hasByteLen(64);
        }
    }

    @Test
    @DisplayName("UC connect: the table's UC masks are legal on the emulator, and a SEND arrives")
    void ucConnectCarriesASend(Context a, Context b) {
        try (Side sa = Side.of(a, QpType.UC); Side sb = Side.of(b, QpType.UC)) {
            QpBringUp uc = BRING_UP.withRemoteAccess(EnumSet.of(org.roce4j.verbs.AccessFlag.REMOTE_WRITE));
            uc.connect(sa.qp(), 7, remoteOf(sb, b, 9));
            uc.connect(sb.qp(), 9, remoteOf(sa, a, 7));

            sb.qp().postRecv(RecvWr.of(2, sb.mr(), 0, 64));
            sa.qp().postSend(SendWr.send(1, sa.mr(), 0, 32));
            assertThat(Completions.takeOne(sb.cq())).isSuccess().hasOpcode(WcOpcode.RECV).hasByteLen(32);
        }
    }

    @Test
    @DisplayName("UD activate: RTS with the Q_Key; a datagram through an AH from path() arrives with its GRH")
    void udActivateAndPathDeliverADatagram(Context a, Context b) {
        try (Side sa = Side.of(a, QpType.UD); Side sb = Side.of(b, QpType.UD)) {
            QpBringUp ud = BRING_UP.withQkey(0x01234567);
            ud.activate(sa.qp(), 0);
            ud.activate(sb.qp(), 0);
            org.assertj.core.api.Assertions.assertThat(sb.qp().query(EnumSet.of(QpAttrMask.QKEY)).qkey())
                    .isEqualTo(0x01234567);

            sb.qp().postRecv(RecvWr.of(2, sb.mr(), 0, 40 + 64));
            try (var ah = sa.pd().createAh(ud.path(b.queryGid(1, 1)))) {
                sa.qp().postSend(SendWr.send(1, sa.mr(), 0, 64).ud(ah, sb.qp().qpNum(), 0x01234567));
                assertThat(Completions.takeOne(sb.cq())).isSuccess().hasOpcode(WcOpcode.RECV).hasByteLen(40 + 64);
            }
        }
    }

    @Test
    @DisplayName("ibv_modify_qp's EINVAL reaches the caller: connecting a QP already in RTS fails at its INIT step")
    void theBackendsRefusalReachesTheCaller(Context a, Context b) {
        try (Side sa = Side.of(a, QpType.RC); Side sb = Side.of(b, QpType.RC)) {
            BRING_UP.connect(sa.qp(), 1, remoteOf(sb, b, 2));
            assertThatThrownBy(() -> BRING_UP.connect(sa.qp(), 1, remoteOf(sb, b, 2)))
                    .isInstanceOfSatisfying(VerbsException.class,
                            e -> org.assertj.core.api.Assertions.assertThat(e.errno()).isEqualTo(Errno.EINVAL));
            assertThat(sa.qp()).isInState(QpState.RTS);
        }
    }
}
