package org.roce4j.conformance;

import java.util.EnumSet;

import org.roce4j.verbs.AccessFlag;
import org.roce4j.verbs.Ah;
import org.roce4j.verbs.AhAttr;
import org.roce4j.verbs.Mtu;
import org.roce4j.verbs.Qp;
import org.roce4j.verbs.QpAttr;
import org.roce4j.verbs.QpCap;
import org.roce4j.verbs.QpInitAttr;
import org.roce4j.verbs.QpState;
import org.roce4j.verbs.QpType;

/**
 * Two connected queue pairs, one on each endpoint, brought to RTS the way ibv_rc_pingpong does it
 * (UD: as ibv_ud_pingpong, with an address handle on each side).
 */
final class QpPair {
    static final int QKEY = 0x11111111;
    static final int FIRST_PSN_A = 0x000100;
    static final int FIRST_PSN_B = 0xFFFFF0;   // wraps past 2^24 within a few packets

    final Endpoint a;
    final Endpoint b;
    final Qp qpA;
    final Qp qpB;
    /** For UD: the handle on A that addresses B, and the reverse. */
    final Ah ahToB;
    final Ah ahToA;

    private QpPair(Endpoint a, Endpoint b, Qp qpA, Qp qpB, Ah ahToB, Ah ahToA) {
        this.a = a;
        this.b = b;
        this.qpA = qpA;
        this.qpB = qpB;
        this.ahToB = ahToB;
        this.ahToA = ahToA;
    }

    static QpPair connect(Endpoint a, Endpoint b, QpType type, Mtu mtu) {
        return connect(a, b, type, mtu, QpCap.of(64, 64), Endpoint.ALL_ACCESS.stream()
                .filter(f -> f != AccessFlag.LOCAL_WRITE).collect(() -> EnumSet.noneOf(AccessFlag.class),
                        EnumSet::add, EnumSet::addAll));
    }

    static QpPair connect(Endpoint a, Endpoint b, QpType type, Mtu mtu, QpCap cap,
                          java.util.Set<AccessFlag> remoteAccess) {
        return connect(a, b, mtu, remoteAccess, e -> QpInitAttr.of(type, e.cq, cap));
    }

    /** The default remote rights: REMOTE_WRITE, REMOTE_READ and REMOTE_ATOMIC. */
    static java.util.Set<AccessFlag> remoteAccess() {
        return EnumSet.of(AccessFlag.REMOTE_WRITE, AccessFlag.REMOTE_READ, AccessFlag.REMOTE_ATOMIC);
    }

    /**
     * A pair whose QPs are created from {@code initAttr(endpoint)} (its type, CQs, SRQ, caps, sq_sig_all),
     * then connected as {@link #connect(Endpoint, Endpoint, QpType, Mtu)} does.
     */
    static QpPair connect(Endpoint a, Endpoint b, Mtu mtu, java.util.Set<AccessFlag> remoteAccess,
                          java.util.function.Function<Endpoint, QpInitAttr> initAttr) {
        QpInitAttr initA = initAttr.apply(a);
        QpType type = initA.type();
        Qp qpA = a.track(a.pd.createQp(initA));
        Qp qpB = b.track(b.pd.createQp(initAttr.apply(b)));
        if (type == QpType.UD) {
            toRtsUd(qpA);
            toRtsUd(qpB);
            Ah ahToB = a.track(a.pd.createAh(AhAttr.of(b.gid(), Endpoint.GID_INDEX, Endpoint.PORT)));
            Ah ahToA = b.track(b.pd.createAh(AhAttr.of(a.gid(), Endpoint.GID_INDEX, Endpoint.PORT)));
            return new QpPair(a, b, qpA, qpB, ahToB, ahToA);
        }
        toInit(qpA, type, remoteAccess);
        toInit(qpB, type, remoteAccess);
        toRtr(qpA, type, mtu, b.gid(), qpB.qpNum(), FIRST_PSN_B);
        toRtr(qpB, type, mtu, a.gid(), qpA.qpNum(), FIRST_PSN_A);
        toRts(qpA, type, FIRST_PSN_A);
        toRts(qpB, type, FIRST_PSN_B);
        return new QpPair(a, b, qpA, qpB, null, null);
    }

    static void toInit(Qp qp, QpType type, java.util.Set<AccessFlag> remoteAccess) {
        qp.modify(new QpAttr().qpState(QpState.INIT).pkeyIndex(0).portNum(Endpoint.PORT)
                .qpAccessFlags(remoteAccess));
    }

    static void toRtr(Qp qp, QpType type, Mtu mtu, org.roce4j.verbs.Gid peer, int peerQpn, int peerFirstPsn) {
        QpAttr attr = new QpAttr().qpState(QpState.RTR).pathMtu(mtu).destQpNum(peerQpn).rqPsn(peerFirstPsn)
                .ahAttr(AhAttr.of(peer, Endpoint.GID_INDEX, Endpoint.PORT));
        if (type == QpType.RC) {
            attr.maxDestRdAtomic(16).minRnrTimer(12);
        }
        qp.modify(attr);
    }

    static void toRts(Qp qp, QpType type, int firstPsn) {
        QpAttr attr = new QpAttr().qpState(QpState.RTS).sqPsn(firstPsn);
        if (type == QpType.RC) {
            attr.timeout(14).retryCnt(7).rnrRetry(7).maxRdAtomic(16);
        }
        qp.modify(attr);
    }

    static void toRtsUd(Qp qp) {
        qp.modify(new QpAttr().qpState(QpState.INIT).pkeyIndex(0).portNum(Endpoint.PORT).qkey(QKEY));
        qp.modify(new QpAttr().qpState(QpState.RTR));
        qp.modify(new QpAttr().qpState(QpState.RTS).sqPsn(FIRST_PSN_A));
    }
}
