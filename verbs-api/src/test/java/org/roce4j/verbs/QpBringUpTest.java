package org.roce4j.verbs;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class QpBringUpTest {
    private static final Gid PEER_GID = Gid.parse("::ffff:10.0.0.2");
    private static final QpBringUp.Remote PEER = new QpBringUp.Remote(0x000123, 0xFFFFF0, PEER_GID);

    /** A QP that only records its modifies, refusing an illegal one as ib_modify_qp_is_ok does. */
    private static final class RecordingQp implements Qp {
        final QpType type;
        QpState state = QpState.RESET;
        final List<QpAttr> modifies = new ArrayList<>();
        final List<Set<QpAttrMask>> masks = new ArrayList<>();

        RecordingQp(QpType type) {
            this.type = type;
        }

        @Override
        public void modify(QpAttr attr, Set<QpAttrMask> mask) {
            QpTransitions.check(type, state, attr.qpState(), mask);
            modifies.add(attr);
            masks.add(EnumSet.copyOf(mask));
            if (mask.contains(QpAttrMask.STATE)) {
                state = attr.qpState();
            }
        }

        @Override public int qpNum() { return 0x000042; }
        @Override public QpType type() { return type; }
        @Override public Pd pd() { throw new UnsupportedOperationException(); }
        @Override public QpInitAttr initAttr() { throw new UnsupportedOperationException(); }
        @Override public QpState state() { return state; }
        @Override public QpAttr query(Set<QpAttrMask> mask) { throw new UnsupportedOperationException(); }
        @Override public void postSend(SendWr wr) { throw new UnsupportedOperationException(); }
        @Override public void postSend(List<SendWr> wrs) { throw new UnsupportedOperationException(); }
        @Override public void postRecv(RecvWr wr) { throw new UnsupportedOperationException(); }
        @Override public void postRecv(List<RecvWr> wrs) { throw new UnsupportedOperationException(); }
        @Override public void attachMcast(Gid gid, int lid) { throw new UnsupportedOperationException(); }
        @Override public void detachMcast(Gid gid, int lid) { throw new UnsupportedOperationException(); }
        @Override public void close() { }
    }

    @Test
    @DisplayName("IBTA 10.3.1 / ib_modify_qp_is_ok: each bring-up step sends exactly the attributes QpTransitions requires, for RC, UC and UD")
    void eachStepSendsExactlyTheRequiredAttributes() {
        QpBringUp bringUp = QpBringUp.pingpong();
        QpState[] path = {QpState.RESET, QpState.INIT, QpState.RTR, QpState.RTS};
        for (QpType type : QpType.values()) {
            for (int step = 0; step + 1 < path.length; step++) {
                QpAttr attr = bringUp.attributes(type, path[step], path[step + 1], PEER, 7);
                EnumSet<QpAttrMask> expected = EnumSet.of(QpAttrMask.STATE);
                expected.addAll(QpTransitions.attributes(type, path[step], path[step + 1]).required());
                assertThat(attr.mask()).as("%s %s -> %s", type, path[step], path[step + 1]).isEqualTo(expected);
                assertThat(attr.qpState()).isEqualTo(path[step + 1]);
            }
        }
    }

    @Test
    @DisplayName("RC connect: RESET -> INIT -> RTR -> RTS with the peer's QPN, PSN and GID and the pingpong values")
    void rcConnectCarriesThePeerAndThePingpongValues() {
        RecordingQp qp = new RecordingQp(QpType.RC);
        QpBringUp bringUp = QpBringUp.pingpong().withPathMtu(Mtu.MTU_4096).withRdAtomic(4, 8).withTimeout(3);
        bringUp.connect(qp, 0x00ABCD, PEER);

        assertThat(qp.state).isEqualTo(QpState.RTS);
        assertThat(qp.modifies).extracting(QpAttr::qpState).containsExactly(QpState.INIT, QpState.RTR, QpState.RTS);
        QpAttr init = qp.modifies.get(0);
        assertThat(init.portNum()).isEqualTo(1);
        assertThat(init.pkeyIndex()).isZero();
        assertThat(init.qpAccessFlags()).containsExactlyInAnyOrder(AccessFlag.REMOTE_WRITE, AccessFlag.REMOTE_READ,
                AccessFlag.REMOTE_ATOMIC);
        QpAttr rtr = qp.modifies.get(1);
        assertThat(rtr.destQpNum()).isEqualTo(0x000123);
        assertThat(rtr.rqPsn()).isEqualTo(0xFFFFF0);
        assertThat(rtr.pathMtu()).isEqualTo(Mtu.MTU_4096);
        assertThat(rtr.ahAttr()).isEqualTo(new AhAttr(PEER_GID, 1, 0, 64, 0, 0, 1));
        assertThat(rtr.maxDestRdAtomic()).isEqualTo(8);
        assertThat(rtr.minRnrTimer()).isEqualTo(12);
        QpAttr rts = qp.modifies.get(2);
        assertThat(rts.sqPsn()).isEqualTo(0x00ABCD);
        assertThat(rts.timeout()).isEqualTo(3);
        assertThat(rts.retryCnt()).isEqualTo(7);
        assertThat(rts.rnrRetry()).isEqualTo(7);
        assertThat(rts.maxRdAtomic()).isEqualTo(4);
    }

    @Test
    @DisplayName("UC connect sends no RC-only attribute (a responder-resources mask on UC is EINVAL)")
    void ucConnectLeavesOutTheReliableAttributes() {
        RecordingQp qp = new RecordingQp(QpType.UC);
        QpBringUp.pingpong().withRemoteAccess(EnumSet.of(AccessFlag.REMOTE_WRITE)).connect(qp, 1, PEER);

        assertThat(qp.state).isEqualTo(QpState.RTS);
        assertThat(qp.masks.get(1)).doesNotContain(QpAttrMask.MAX_DEST_RD_ATOMIC, QpAttrMask.MIN_RNR_TIMER);
        assertThat(qp.masks.get(2)).containsExactlyInAnyOrder(QpAttrMask.STATE, QpAttrMask.SQ_PSN);
        assertThat(qp.modifies.get(0).qpAccessFlags()).containsExactly(AccessFlag.REMOTE_WRITE);
    }

    @Test
    @DisplayName("UD activate: Q_Key at INIT, nothing but the state at RTR, the first PSN at RTS")
    void udActivateSetsTheQkeyAndThePsn() {
        RecordingQp qp = new RecordingQp(QpType.UD);
        QpBringUp.pingpong().withQkey(0x01234567).activate(qp, 0x000555);

        assertThat(qp.state).isEqualTo(QpState.RTS);
        assertThat(qp.modifies.get(0).qkey()).isEqualTo(0x01234567);
        assertThat(qp.masks.get(1)).containsExactly(QpAttrMask.STATE);
        assertThat(qp.modifies.get(2).sqPsn()).isEqualTo(0x000555);
    }

    @Test
    @DisplayName("connect is for RC and UC, activate for UD: the other way round is refused before any modify")
    void connectAndActivateRefuseTheOtherService() {
        RecordingQp ud = new RecordingQp(QpType.UD);
        RecordingQp rc = new RecordingQp(QpType.RC);
        assertThatThrownBy(() -> QpBringUp.pingpong().connect(ud, 0, PEER)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> QpBringUp.pingpong().activate(rc, 0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> QpBringUp.pingpong().readyToReceive(rc, null)).isInstanceOf(NullPointerException.class);
        assertThat(ud.modifies).isEmpty();
        assertThat(rc.modifies).isEmpty();
    }

    @Test
    @DisplayName("what the backend's modify throws reaches the caller unchanged (EINVAL: connect of a QP already in RTS)")
    void aFailedModifyReachesTheCaller() {
        RecordingQp qp = new RecordingQp(QpType.RC);
        QpBringUp.pingpong().connect(qp, 0, PEER);
        assertThatThrownBy(() -> QpBringUp.pingpong().connect(qp, 0, PEER))
                .isInstanceOfSatisfying(VerbsException.class, e -> assertThat(e.errno()).isEqualTo(Errno.EINVAL));
        assertThat(qp.state).isEqualTo(QpState.RTS);
        assertThat(qp.modifies).hasSize(3);
    }

    @Test
    @DisplayName("a transition the table does not have is refused by name")
    void aTransitionOutsideTheTableIsRefused() {
        assertThatThrownBy(() -> QpBringUp.pingpong().attributes(QpType.RC, QpState.RESET, QpState.RTS, PEER, 0))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("RESET -> RTS");
    }

    @Test
    @DisplayName("pingpong(): ibv_rc_pingpong's values (port 1, timeout 14, retry_cnt 7, rnr_retry 7, min_rnr_timer 12, depth 1)")
    void pingpongDefaultsAreTheExamples() {
        QpBringUp defaults = QpBringUp.pingpong();
        assertThat(defaults.portNum()).isEqualTo(1);
        assertThat(defaults.pkeyIndex()).isZero();
        assertThat(defaults.timeout()).isEqualTo(14);
        assertThat(defaults.retryCnt()).isEqualTo(7);
        assertThat(defaults.rnrRetry()).isEqualTo(7);
        assertThat(defaults.minRnrTimer()).isEqualTo(12);
        assertThat(defaults.maxRdAtomic()).isEqualTo(1);
        assertThat(defaults.maxDestRdAtomic()).isEqualTo(1);
        assertThat(defaults.qkey()).isEqualTo(0x11111111);
        assertThat(defaults.pathMtu()).isEqualTo(Mtu.MTU_1024);
        assertThat(defaults.path(PEER_GID)).isEqualTo(AhAttr.of(PEER_GID, 1, 1));
    }
}
