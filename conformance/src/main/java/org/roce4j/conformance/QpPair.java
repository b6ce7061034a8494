package org.roce4j.conformance;

import java.util.EnumSet;
import java.util.Set;
import java.util.function.BiFunction;
import java.util.function.Function;

import org.roce4j.verbs.AccessFlag;
import org.roce4j.verbs.Ah;
import org.roce4j.verbs.Mtu;
import org.roce4j.verbs.Qp;
import org.roce4j.verbs.QpBringUp;
import org.roce4j.verbs.QpCap;
import org.roce4j.verbs.QpEx;
import org.roce4j.verbs.QpInitAttr;
import org.roce4j.verbs.QpInitAttrEx;
import org.roce4j.verbs.QpType;
import org.roce4j.verbs.SendOpsFlag;

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
        return connect(a, b, type, mtu, QpCap.of(64, 64), remoteAccess());
    }

    static QpPair connect(Endpoint a, Endpoint b, QpType type, Mtu mtu, QpCap cap, Set<AccessFlag> remoteAccess) {
        return connect(a, b, mtu, remoteAccess, e -> QpInitAttr.of(type, e.cq, cap));
    }

    /** The default remote rights: REMOTE_WRITE, REMOTE_READ and REMOTE_ATOMIC. */
    static Set<AccessFlag> remoteAccess() {
        return EnumSet.of(AccessFlag.REMOTE_WRITE, AccessFlag.REMOTE_READ, AccessFlag.REMOTE_ATOMIC);
    }

    /**
     * The suite's bring-up: ibv_rc_pingpong's values, the endpoints' port and GID index, Q_Key
     * {@link #QKEY}, 16 READs/atomics outstanding each way.
     */
    static QpBringUp bringUp(Mtu mtu, Set<AccessFlag> remoteAccess) {
        return QpBringUp.pingpong().withPortNum(Endpoint.PORT).withSgidIndex(Endpoint.GID_INDEX).withQkey(QKEY)
                .withPathMtu(mtu).withRemoteAccess(remoteAccess).withRdAtomic(16, 16);
    }

    /**
     * A pair whose QPs are created from {@code initAttr(endpoint)} (its type, CQs, SRQ, caps, sq_sig_all),
     * then connected as {@link #connect(Endpoint, Endpoint, QpType, Mtu)} does.
     */
    static QpPair connect(Endpoint a, Endpoint b, Mtu mtu, Set<AccessFlag> remoteAccess,
                          Function<Endpoint, QpInitAttr> initAttr) {
        return connect(a, b, mtu, remoteAccess, initAttr, (e, attr) -> e.pd.createQp(attr));
    }

    /**
     * Two extended QPs ({@code ibv_create_qp_ex}) of a type, created for {@code sendOps}, connected as
     * {@link #connect(Endpoint, Endpoint, QpType, Mtu)} connects ordinary ones; {@link #exA()} and {@link #exB()}
     * give their builders.
     */
    static QpPair connectEx(Endpoint a, Endpoint b, QpType type, Mtu mtu, QpCap cap, Set<AccessFlag> remoteAccess,
                            Set<SendOpsFlag> sendOps) {
        return connect(a, b, mtu, remoteAccess, e -> QpInitAttr.of(type, e.cq, cap),
                (e, attr) -> e.pd.createQpEx(new QpInitAttrEx(attr, sendOps)));
    }

    QpEx exA() {
        return (QpEx) qpA;
    }

    QpEx exB() {
        return (QpEx) qpB;
    }

    private static QpPair connect(Endpoint a, Endpoint b, Mtu mtu, Set<AccessFlag> remoteAccess,
                                  Function<Endpoint, QpInitAttr> initAttr, BiFunction<Endpoint, QpInitAttr, Qp> create) {
        QpInitAttr initA = initAttr.apply(a);
        Qp qpA = a.track(create.apply(a, initA));
        Qp qpB = b.track(create.apply(b, initAttr.apply(b)));
        QpBringUp bringUp = bringUp(mtu, remoteAccess);
        if (initA.type() == QpType.UD) {
            bringUp.activate(qpA, FIRST_PSN_A);
            bringUp.activate(qpB, FIRST_PSN_A);
            Ah ahToB = a.track(a.pd.createAh(bringUp.path(b.gid())));
            Ah ahToA = b.track(b.pd.createAh(bringUp.path(a.gid())));
            return new QpPair(a, b, qpA, qpB, ahToB, ahToA);
        }
        connect(bringUp, qpA, qpB, a, b, FIRST_PSN_A, FIRST_PSN_B);
        return new QpPair(a, b, qpA, qpB, null, null);
    }

    /**
     * Brings two RC or UC QPs from RESET to RTS towards each other, step by step in turn (both INIT,
     * both RTR, both RTS), A sending from {@code psnA} and B from {@code psnB}.
     */
    static void connect(QpBringUp bringUp, Qp qpA, Qp qpB, Endpoint a, Endpoint b, int psnA, int psnB) {
        bringUp.init(qpA);
        bringUp.init(qpB);
        bringUp.readyToReceive(qpA, new QpBringUp.Remote(qpB.qpNum(), psnB, b.gid()));
        bringUp.readyToReceive(qpB, new QpBringUp.Remote(qpA.qpNum(), psnA, a.gid()));
        bringUp.readyToSend(qpA, psnA);
        bringUp.readyToSend(qpB, psnB);
    }
}
