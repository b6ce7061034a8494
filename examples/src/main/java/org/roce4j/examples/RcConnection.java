package org.roce4j.examples;

import java.util.Set;

import org.roce4j.verbs.AccessFlag;
import org.roce4j.verbs.AhAttr;
import org.roce4j.verbs.Gid;
import org.roce4j.verbs.Mtu;
import org.roce4j.verbs.Qp;
import org.roce4j.verbs.QpAttr;
import org.roce4j.verbs.QpCap;
import org.roce4j.verbs.QpInitAttr;
import org.roce4j.verbs.QpState;
import org.roce4j.verbs.QpType;

/**
 * An RC queue pair brought to RTS the way {@code ibv_rc_pingpong} does it. The peers learn each
 * other's {@link Address} out of band — over TCP in a real deployment; the examples hand it over
 * in memory, both sides living in one process.
 *
 * <p>This is the one place in the project that spells out the RESET → INIT → RTR → RTS modifies by
 * hand, on purpose: it shows which attributes each step carries. Everywhere else (UdPeer here too)
 * calls {@link org.roce4j.verbs.QpBringUp}, which sends the same attributes, taken from
 * {@link org.roce4j.verbs.QpTransitions}.
 */
public final class RcConnection {
    /** What two RC peers exchange before connecting: QP number, first PSN, GID. */
    public record Address(int qpNum, int psn, Gid gid) {
    }

    private RcConnection() {
    }

    /**
     * {@return a new RC QP on {@code endpoint} in INIT, its responder allowing {@code remoteAccess}}
     *
     * @param endpoint     where the QP lives (its CQ serves both queues)
     * @param cap          queue sizes
     * @param remoteAccess what peers may do to this side's memory through this QP
     */
    public static Qp create(Endpoint endpoint, QpCap cap, Set<AccessFlag> remoteAccess) {
        Qp qp = endpoint.keep(endpoint.pd().createQp(QpInitAttr.of(QpType.RC, endpoint.cq(), cap)));
        qp.modify(new QpAttr().qpState(QpState.INIT).pkeyIndex(0).portNum(Endpoint.PORT).qpAccessFlags(remoteAccess));
        return qp;
    }

    /**
     * Moves an INIT QP to RTR and RTS towards {@code peer} (timeout 14, retry_cnt 7, rnr_retry 7,
     * min_rnr_timer 12, one outstanding READ/atomic each way at least: as ibv_rc_pingpong).
     *
     * @param qp         the local QP, in INIT
     * @param firstPsn   the PSN this side sends first (what the peer got in our {@link Address})
     * @param peer       the peer's address
     * @param mtu        the path MTU
     * @param rdAtomic   READs and atomics outstanding, as requester and as responder
     */
    public static void connect(Qp qp, int firstPsn, Address peer, Mtu mtu, int rdAtomic) {
        qp.modify(new QpAttr().qpState(QpState.RTR).pathMtu(mtu).destQpNum(peer.qpNum()).rqPsn(peer.psn())
                .ahAttr(AhAttr.of(peer.gid(), Endpoint.GID_INDEX, Endpoint.PORT))
                .maxDestRdAtomic(rdAtomic).minRnrTimer(12));
        qp.modify(new QpAttr().qpState(QpState.RTS).sqPsn(firstPsn).timeout(14).retryCnt(7).rnrRetry(7)
                .maxRdAtomic(rdAtomic));
    }
}
