package org.roce4j.testkit;

import static org.roce4j.testkit.RoceAssertions.assertThat;

import java.util.EnumSet;
import java.util.Set;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.roce4j.verbs.AccessFlag;
import org.roce4j.verbs.Context;
import org.roce4j.verbs.CqEx;
import org.roce4j.verbs.CqInitAttrEx;
import org.roce4j.verbs.Mr;
import org.roce4j.verbs.Mw;
import org.roce4j.verbs.MwBind;
import org.roce4j.verbs.MwBindInfo;
import org.roce4j.verbs.MwType;
import org.roce4j.verbs.QpCap;
import org.roce4j.verbs.QpEx;
import org.roce4j.verbs.QpInitAttr;
import org.roce4j.verbs.QpInitAttrEx;
import org.roce4j.verbs.QpType;
import org.roce4j.verbs.SendFlag;
import org.roce4j.verbs.SendOpsFlag;
import org.roce4j.verbs.SendWr;
import org.roce4j.verbs.WcOpcode;
import org.roce4j.verbs.WcStatus;

/**
 * The testkit's tracked objects pass memory windows and the extended verbs through to the backend: the
 * region inside a bind is the backend's, a window or extended QP/CQ is tracked (and must be closed) like
 * the other objects.
 */
@EmulatedFabric
class WindowsAndExtendedVerbsTest {

    private static final Set<AccessFlag> BINDABLE = EnumSet.of(AccessFlag.LOCAL_WRITE, AccessFlag.MW_BIND);
    private static final Set<AccessFlag> REMOTE_WRITE = EnumSet.of(AccessFlag.REMOTE_WRITE);

    @Test
    @DisplayName("a type 2 window bound by a BIND_MW work request of a tracked QP takes the peer's WRITE")
    void aBindMwWorkRequestOfATrackedQpBindsTheWindow(Context a, Context b) {
        QpPair pair = QpPair.rc(a, b);
        try (Mr region = pair.b().pd().regMr(pair.b().buffer().asSlice(4096, 4096), BINDABLE);
             Mw window = pair.b().pd().allocMw(MwType.TYPE_2)) {
            int rkey = Mw.incRkey(window.rkey());
            pair.b().qp().postSend(SendWr.bindMw(3, window, rkey, new MwBindInfo(region, region.address(), 64, REMOTE_WRITE)));
            assertThat(Completions.takeOne(pair.b().cq())).isSuccess().hasOpcode(WcOpcode.BIND_MW);

            pair.a().qp().postSend(SendWr.rdmaWrite(4, pair.a().mr(), 0, 64, region.address(), rkey));
            assertThat(Completions.takeOne(pair.a().cq())).isSuccess();
            pair.a().qp().postSend(SendWr.rdmaWrite(5, pair.a().mr(), 0, 65, region.address(), rkey));
            assertThat(Completions.takeOne(pair.a().cq())).hasStatus(WcStatus.REM_ACCESS_ERR);
        }
    }

    @Test
    @DisplayName("ibv_bind_mw of a type 1 window on a tracked QP: the region is the backend's, the new rkey the window's")
    void bindMwOfATrackedQpBindsATypeOneWindow(Context a, Context b) {
        QpPair pair = QpPair.rc(a, b);
        try (Mr region = pair.b().pd().regMr(pair.b().buffer().asSlice(4096, 4096), BINDABLE);
             Mw window = pair.b().pd().allocMw(MwType.TYPE_1)) {
            int before = window.rkey();
            pair.b().qp().bindMw(window, new MwBind(6, SendFlag.SIGNALED.bit(),
                    new MwBindInfo(region, region.address(), 128, REMOTE_WRITE)));
            assertThat(Completions.takeOne(pair.b().cq())).isSuccess().hasOpcode(WcOpcode.BIND_MW);
            org.assertj.core.api.Assertions.assertThat(window.rkey()).isNotEqualTo(before);

            pair.a().qp().postSend(SendWr.rdmaWrite(7, pair.a().mr(), 0, 128, region.address(), window.rkey()));
            assertThat(Completions.takeOne(pair.a().cq())).isSuccess();
        }
    }

    @Test
    @DisplayName("an extended QP and CQ made through tracked objects are QpEx and CqEx, and ibv_wr_bind_mw binds through them")
    void extendedQpsAndCqsAreTrackedAsWhatTheyAre(Context a) {
        try (var pd = a.allocPd();
             CqEx cq = a.createCqEx(CqInitAttrEx.of(8, Set.of()));
             QpEx qp = pd.createQpEx(QpInitAttrEx.of(QpInitAttr.of(QpType.RC, cq, QpCap.of(4, 4)),
                     SendOpsFlag.BIND_MW))) {
            org.assertj.core.api.Assertions.assertThat(qp.sendOps()).contains(SendOpsFlag.BIND_MW);
            org.assertj.core.api.Assertions.assertThat(qp.qpNum()).isPositive();
        }
    }
}
