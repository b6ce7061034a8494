package org.roce4j.verbs;

import java.util.EnumSet;
import java.util.Set;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class QpTransitionsTest {
    private static final Set<QpAttrMask> RC_INIT_TO_RTR = EnumSet.of(QpAttrMask.STATE, QpAttrMask.AV,
            QpAttrMask.PATH_MTU, QpAttrMask.DEST_QPN, QpAttrMask.RQ_PSN, QpAttrMask.MAX_DEST_RD_ATOMIC,
            QpAttrMask.MIN_RNR_TIMER);

    @Test
    @DisplayName("IBTA 10.3.1: RC INIT→RTR needs AV, PATH_MTU, DEST_QPN, RQ_PSN, MAX_DEST_RD_ATOMIC, MIN_RNR_TIMER")
    void rcInitToRtrNeedsTheResponderAttributes() {
        assertThat(QpTransitions.isLegal(QpType.RC, QpState.INIT, QpState.RTR, RC_INIT_TO_RTR)).isTrue();
        for (QpAttrMask required : RC_INIT_TO_RTR) {
            EnumSet<QpAttrMask> missingOne = EnumSet.copyOf(RC_INIT_TO_RTR);
            missingOne.remove(required);
            if (required != QpAttrMask.STATE) {
                assertThat(QpTransitions.isLegal(QpType.RC, QpState.INIT, QpState.RTR, missingOne))
                        .as("without %s", required).isFalse();
            }
        }
    }

    @Test
    @DisplayName("UD INIT→RTR needs nothing but the state; UC needs no responder resources")
    void unreliableServicesNeedLessForRtr() {
        assertThat(QpTransitions.isLegal(QpType.UD, QpState.INIT, QpState.RTR, EnumSet.of(QpAttrMask.STATE))).isTrue();
        assertThat(QpTransitions.isLegal(QpType.UC, QpState.INIT, QpState.RTR, EnumSet.of(QpAttrMask.STATE,
                QpAttrMask.AV, QpAttrMask.PATH_MTU, QpAttrMask.DEST_QPN, QpAttrMask.RQ_PSN))).isTrue();
        assertThat(QpTransitions.isLegal(QpType.UC, QpState.INIT, QpState.RTR, EnumSet.of(QpAttrMask.STATE,
                QpAttrMask.AV, QpAttrMask.PATH_MTU, QpAttrMask.DEST_QPN, QpAttrMask.RQ_PSN,
                QpAttrMask.MAX_DEST_RD_ATOMIC))).as("UC has no RDMA READ responder resources").isFalse();
    }

    @Test
    @DisplayName("ib_modify_qp_is_ok: an attribute outside required ∪ optional is EINVAL, and says which")
    void extraAttributeIsEinval() {
        EnumSet<QpAttrMask> mask = EnumSet.of(QpAttrMask.STATE, QpAttrMask.PKEY_INDEX, QpAttrMask.PORT,
                QpAttrMask.ACCESS_FLAGS, QpAttrMask.SQ_PSN);
        assertThatThrownBy(() -> QpTransitions.check(QpType.RC, QpState.RESET, QpState.INIT, mask))
                .isInstanceOfSatisfying(VerbsException.class, e -> assertThat(e.errno()).isEqualTo(Errno.EINVAL))
                .hasMessageContaining("SQ_PSN");
    }

    @Test
    @DisplayName("qp_state_table: any state may go to RESET, any state but RESET to ERR; RESET cannot jump to RTS")
    void anyStateToResetOrErrButNoShortcuts() {
        for (QpType type : QpType.values()) {
            for (QpState from : QpState.values()) {
                if (from == QpState.SQE && type == QpType.RC) {
                    continue;
                }
                assertThat(QpTransitions.isLegal(type, from, QpState.ERR, EnumSet.of(QpAttrMask.STATE)))
                        .as("%s %s -> ERR", type, from).isEqualTo(from != QpState.RESET);
                assertThat(QpTransitions.isLegal(type, from, QpState.RESET, EnumSet.of(QpAttrMask.STATE))).isTrue();
            }
            assertThat(QpTransitions.attributes(type, QpState.RESET, QpState.RTS)).isNull();
        }
    }

    @Test
    @DisplayName("Linux verbs.c qp_state_table has no RESET -> ERR: ib_modify_qp_is_ok answers EINVAL for every device")
    void resetToErrIsEinval() {
        for (QpType type : QpType.values()) {
            assertThat(QpTransitions.attributes(type, QpState.RESET, QpState.ERR)).isNull();
            assertThatThrownBy(() -> QpTransitions.check(type, QpState.RESET, QpState.ERR, EnumSet.of(QpAttrMask.STATE)))
                    .isInstanceOfSatisfying(VerbsException.class, e -> assertThat(e.errno()).isEqualTo(Errno.EINVAL));
        }
    }

    @Test
    @DisplayName("IBTA 10.3.1: only UC and UD leave SQE for RTS")
    void sqeExistsOnlyForUnreliableServices() {
        assertThat(QpTransitions.attributes(QpType.RC, QpState.SQE, QpState.RTS)).isNull();
        assertThat(QpTransitions.attributes(QpType.UC, QpState.SQE, QpState.RTS)).isNotNull();
        assertThat(QpTransitions.attributes(QpType.UD, QpState.SQE, QpState.RTS)).isNotNull();
    }

    @Test
    @DisplayName("CUR_STATE is accepted only from RTR, RTS, SQD and SQE")
    void curStateOnlyFromLaterStates() {
        assertThat(QpTransitions.isLegal(QpType.UD, QpState.INIT, QpState.INIT,
                EnumSet.of(QpAttrMask.CUR_STATE))).isFalse();
        assertThat(QpTransitions.isLegal(QpType.UD, QpState.RTS, QpState.RTS,
                EnumSet.of(QpAttrMask.CUR_STATE))).isTrue();
    }

    @Test
    @DisplayName("A modify without STATE stays in the current state (RTS→RTS with MIN_RNR_TIMER on RC)")
    void noStateBitMeansSameState() {
        assertThat(QpTransitions.isLegal(QpType.RC, QpState.RTS, QpState.RESET,
                EnumSet.of(QpAttrMask.MIN_RNR_TIMER))).isTrue();
        assertThat(QpTransitions.isLegal(QpType.RC, QpState.RTR, QpState.RESET,
                EnumSet.of(QpAttrMask.MIN_RNR_TIMER))).as("no RTR→RTR arc").isFalse();
    }
}
