package org.roce4j.verbs;

import java.util.EnumSet;
import java.util.Objects;
import java.util.Set;
import java.util.function.Consumer;

/**
 * The one queue pair bring-up: RESET → INIT → RTR → RTS for RC, UC and UD, as {@code pp_connect_ctx}
 * of rdma-core's {@code ibv_*_pingpong} (and rdma_cm underneath {@code rdma_connect}) does it. Each
 * step sends exactly the attributes {@link QpTransitions} requires for that transition and QP type
 * — no more, so it is legal on every provider — with the values held here; the values a caller
 * learns from its peer out of band (QPN, first PSN, GID) come as a {@link Remote}.
 *
 * <pre>{@code
 * QpBringUp bringUp = QpBringUp.pingpong().withPathMtu(Mtu.MTU_1024);
 * bringUp.connect(qp, myPsn, new QpBringUp.Remote(peerQpn, peerPsn, peerGid));   // RC or UC: now RTS
 * bringUp.activate(udQp, myPsn);                                                  // UD: now RTS
 * }</pre>
 *
 * <p>It only calls {@link Qp#modify}: whatever a backend (the emulator, or a device through
 * libibverbs) answers to a modify, a caller of this class sees. The steps are public too, for
 * callers that move a QP to INIT before the peer's address is known, as the pingpong examples do.
 *
 * @param portNum         the local port, from 1 ({@code port_num}; also the address vector's port)
 * @param pkeyIndex       the P_Key index ({@code pkey_index})
 * @param sgidIndex       the local GID index the address vector sends from ({@code ah_attr.grh.sgid_index})
 * @param hopLimit        the address vector's IP TTL / hop limit ({@code ah_attr.grh.hop_limit})
 * @param sl              the address vector's service level ({@code ah_attr.sl})
 * @param remoteAccess    what an RC or UC responder allows its peers ({@code qp_access_flags})
 * @param qkey            the Q_Key of a UD QP ({@code qkey})
 * @param pathMtu         the path MTU of RC and UC ({@code path_mtu})
 * @param timeout         RC local ACK timeout exponent, 4.096 µs × 2^timeout ({@code timeout})
 * @param retryCnt        RC retries after timeouts and sequence NAKs ({@code retry_cnt})
 * @param rnrRetry        RC retries after RNR NAKs, 7 = forever ({@code rnr_retry})
 * @param minRnrTimer     the RNR NAK timer code an RC responder sends, IBTA table 45 ({@code min_rnr_timer})
 * @param maxRdAtomic     RC READs and atomics outstanding as requester ({@code max_rd_atomic})
 * @param maxDestRdAtomic RC READs and atomics accepted as responder ({@code max_dest_rd_atomic})
 */
public record QpBringUp(int portNum, int pkeyIndex, int sgidIndex, int hopLimit, int sl, Set<AccessFlag> remoteAccess,
                        int qkey, Mtu pathMtu, int timeout, int retryCnt, int rnrRetry, int minRnrTimer,
                        int maxRdAtomic, int maxDestRdAtomic) {

    /**
     * What a peer tells us out of band before its QP can be reached: {@code struct pingpong_dest}
     * without the LID, which RoCE does not route by.
     *
     * @param qpNum the peer's QP number
     * @param psn   the first PSN the peer sends (our {@code rq_psn})
     * @param gid   the peer's GID (our address vector's {@code dgid})
     */
    public record Remote(int qpNum, int psn, Gid gid) {
        /** Requires a GID (NullPointerException). */
        public Remote {
            Objects.requireNonNull(gid, "gid");
        }

        /** QPN and PSN as {@link NumberText} prints them. */
        @Override
        public String toString() {
            return "Remote[qpNum=" + NumberText.qpn(qpNum) + ", psn=" + NumberText.psn(psn) + ", gid=" + gid + "]";
        }
    }

    /** Copies the access flags (unmodifiable) and requires a path MTU (NullPointerException). */
    public QpBringUp {
        remoteAccess = Set.copyOf(remoteAccess);
        Objects.requireNonNull(pathMtu, "pathMtu");
    }

    /**
     * {@return the values of {@code ibv_rc_pingpong}: port 1, P_Key index 0, timeout 14 (67 ms),
     * retry_cnt 7, rnr_retry 7, min_rnr_timer 12, one READ/atomic outstanding each way, MTU 1024}; and
     * what this project's callers add: GID index 1, hop limit 64 (as {@link AhAttr#of}), remote
     * write, read and atomic allowed, the Q_Key 0x11111111 of {@code ibv_ud_pingpong}
     */
    public static QpBringUp pingpong() {
        return new QpBringUp(1, 0, 1, 64, 0,
                EnumSet.of(AccessFlag.REMOTE_WRITE, AccessFlag.REMOTE_READ, AccessFlag.REMOTE_ATOMIC),
                0x11111111, Mtu.MTU_1024, 14, 7, 7, 12, 1, 1);
    }

    /**
     * RESET → INIT.
     *
     * @param qp the QP, in RESET
     * @throws VerbsException what the backend's modify throws (EINVAL for an illegal one)
     */
    public void init(Qp qp) {
        modify(qp, QpState.RESET, QpState.INIT, null, 0);
    }

    /**
     * INIT → RTR: the responder is ready for {@code remote}'s packets (UD: for any peer's; the
     * remote is then unused and may be null).
     *
     * @param qp     the QP, in INIT
     * @param remote the peer (RC, UC)
     * @throws VerbsException what the backend's modify throws
     */
    public void readyToReceive(Qp qp, Remote remote) {
        if (qp.type() != QpType.UD) {
            Objects.requireNonNull(remote, "remote");
        }
        modify(qp, QpState.INIT, QpState.RTR, remote, 0);
    }

    /**
     * RTR → RTS: the requester may send, its first PSN {@code sqPsn}.
     *
     * @param qp    the QP, in RTR
     * @param sqPsn the first PSN this side sends (what the peer was told)
     * @throws VerbsException what the backend's modify throws
     */
    public void readyToSend(Qp qp, int sqPsn) {
        modify(qp, QpState.RTR, QpState.RTS, null, sqPsn);
    }

    /**
     * RESET → INIT → RTR → RTS of an RC or UC QP towards {@code remote}: {@code pp_connect_ctx} with
     * the INIT step before it.
     *
     * @param qp     the QP, in RESET
     * @param sqPsn  the first PSN this side sends
     * @param remote the peer
     * @throws IllegalArgumentException for a UD QP (use {@link #activate})
     * @throws VerbsException what the backend's modify throws
     */
    public void connect(Qp qp, int sqPsn, Remote remote) {
        if (qp.type() == QpType.UD) {
            throw new IllegalArgumentException("a UD QP has no peer to connect to: activate it");
        }
        init(qp);
        readyToReceive(qp, remote);
        readyToSend(qp, sqPsn);
    }

    /**
     * RESET → INIT → RTR → RTS of a UD QP: each datagram names its destination through an address
     * handle instead ({@link #path}).
     *
     * @param qp    the UD QP, in RESET
     * @param sqPsn the first PSN it sends
     * @throws IllegalArgumentException for an RC or UC QP (use {@link #connect})
     * @throws VerbsException what the backend's modify throws
     */
    public void activate(Qp qp, int sqPsn) {
        if (qp.type() != QpType.UD) {
            throw new IllegalArgumentException("a " + qp.type() + " QP needs its peer: connect it");
        }
        init(qp);
        readyToReceive(qp, null);
        readyToSend(qp, sqPsn);
    }

    /**
     * {@return the address vector towards {@code gid} with this bring-up's GID index, hop limit,
     * service level and port: what RTR puts in {@code ah_attr}, and what a UD sender gives
     * {@code ibv_create_ah}}
     *
     * @param gid the destination GID
     */
    public AhAttr path(Gid gid) {
        return new AhAttr(gid, sgidIndex, 0, hopLimit, 0, sl, portNum);
    }

    /**
     * {@return the attributes of the step {@code from → to} for {@code type}: the state, and one value
     * for each attribute {@link QpTransitions} requires, nothing else}
     *
     * @param type   the QP type
     * @param from   the state the QP is in
     * @param to     the state to move to
     * @param remote the peer, for the attributes that describe it (may be null when none is required)
     * @param sqPsn  the first PSN sent, should SQ_PSN be required
     * @throws IllegalArgumentException when the table has no such transition, or requires an attribute
     *     this class has no value for
     */
    public QpAttr attributes(QpType type, QpState from, QpState to, Remote remote, int sqPsn) {
        QpTransitions.Attributes transition = QpTransitions.attributes(type, from, to);
        if (transition == null) {
            throw new IllegalArgumentException("no transition " + from + " -> " + to + " for " + type);
        }
        QpAttr attr = new QpAttr().qpState(to);
        for (QpAttrMask field : transition.required()) {
            switch (field) {
                case PKEY_INDEX -> attr.pkeyIndex(pkeyIndex);
                case PORT -> attr.portNum(portNum);
                case QKEY -> attr.qkey(qkey);
                case ACCESS_FLAGS -> attr.qpAccessFlags(remoteAccess);
                case AV -> attr.ahAttr(path(Objects.requireNonNull(remote, "remote").gid()));
                case PATH_MTU -> attr.pathMtu(pathMtu);
                case DEST_QPN -> attr.destQpNum(Objects.requireNonNull(remote, "remote").qpNum());
                case RQ_PSN -> attr.rqPsn(Objects.requireNonNull(remote, "remote").psn());
                case MAX_DEST_RD_ATOMIC -> attr.maxDestRdAtomic(maxDestRdAtomic);
                case MIN_RNR_TIMER -> attr.minRnrTimer(minRnrTimer);
                case SQ_PSN -> attr.sqPsn(sqPsn);
                case TIMEOUT -> attr.timeout(timeout);
                case RETRY_CNT -> attr.retryCnt(retryCnt);
                case RNR_RETRY -> attr.rnrRetry(rnrRetry);
                case MAX_QP_RD_ATOMIC -> attr.maxRdAtomic(maxRdAtomic);
                default -> throw new IllegalArgumentException(
                        type + " " + from + " -> " + to + " requires " + field + ", which a bring-up does not set");
            }
        }
        return attr;
    }

    private void modify(Qp qp, QpState from, QpState to, Remote remote, int sqPsn) {
        qp.modify(attributes(qp.type(), from, to, remote, sqPsn));
    }

    /**
     * {@return a copy with another port}
     *
     * @param port the local port, from 1
     */
    public QpBringUp withPortNum(int port) { return edit(d -> d.portNum = port); }

    /**
     * {@return a copy with another P_Key index}
     *
     * @param index the P_Key index
     */
    public QpBringUp withPkeyIndex(int index) { return edit(d -> d.pkeyIndex = index); }

    /**
     * {@return a copy whose address vectors send from another local GID}
     *
     * @param index the local GID index
     */
    public QpBringUp withSgidIndex(int index) { return edit(d -> d.sgidIndex = index); }

    /**
     * {@return a copy whose address vectors carry another hop limit}
     *
     * @param limit the IP TTL / hop limit
     */
    public QpBringUp withHopLimit(int limit) { return edit(d -> d.hopLimit = limit); }

    /**
     * {@return a copy whose address vectors carry another service level}
     *
     * @param level the service level
     */
    public QpBringUp withSl(int level) { return edit(d -> d.sl = level); }

    /**
     * {@return a copy whose RC and UC responders allow other remote operations}
     *
     * @param rights REMOTE_WRITE, REMOTE_READ, REMOTE_ATOMIC, or none
     */
    public QpBringUp withRemoteAccess(Set<AccessFlag> rights) { return edit(d -> d.remoteAccess = rights); }

    /**
     * {@return a copy whose UD QPs get another Q_Key}
     *
     * @param key the Q_Key
     */
    public QpBringUp withQkey(int key) { return edit(d -> d.qkey = key); }

    /**
     * {@return a copy with another path MTU}
     *
     * @param mtu the path MTU of RC and UC QPs
     */
    public QpBringUp withPathMtu(Mtu mtu) { return edit(d -> d.pathMtu = mtu); }

    /**
     * {@return a copy with another RC local ACK timeout}
     *
     * @param exponent 4.096 µs × 2^exponent; 0 waits forever
     */
    public QpBringUp withTimeout(int exponent) { return edit(d -> d.timeout = exponent); }

    /**
     * {@return a copy with another RC retry count}
     *
     * @param count retries after timeouts and sequence NAKs
     */
    public QpBringUp withRetryCnt(int count) { return edit(d -> d.retryCnt = count); }

    /**
     * {@return a copy with another RC RNR retry count}
     *
     * @param count retries after RNR NAKs, 7 = forever
     */
    public QpBringUp withRnrRetry(int count) { return edit(d -> d.rnrRetry = count); }

    /**
     * {@return a copy whose RC responders send another RNR NAK timer}
     *
     * @param code the timer code, IBTA table 45
     */
    public QpBringUp withMinRnrTimer(int code) { return edit(d -> d.minRnrTimer = code); }

    /**
     * {@return a copy with other RC READ/atomic depths}
     *
     * @param asRequester READs and atomics outstanding as requester ({@code max_rd_atomic})
     * @param asResponder READs and atomics accepted as responder ({@code max_dest_rd_atomic})
     */
    public QpBringUp withRdAtomic(int asRequester, int asResponder) {
        return edit(d -> { d.maxRdAtomic = asRequester; d.maxDestRdAtomic = asResponder; });
    }

    private QpBringUp edit(Consumer<Draft> change) {
        Draft draft = new Draft(this);
        change.accept(draft);
        return draft.build();
    }

    /** The record's components, its Q_Key as {@link NumberText} prints keys. */
    @Override
    public String toString() {
        return "QpBringUp[portNum=" + portNum + ", pkeyIndex=" + pkeyIndex + ", sgidIndex=" + sgidIndex + ", hopLimit="
                + hopLimit + ", sl=" + sl + ", remoteAccess=" + remoteAccess + ", qkey=" + NumberText.key(qkey)
                + ", pathMtu=" + pathMtu + ", timeout=" + timeout + ", retryCnt=" + retryCnt + ", rnrRetry=" + rnrRetry
                + ", minRnrTimer=" + minRnrTimer + ", maxRdAtomic=" + maxRdAtomic + ", maxDestRdAtomic="
                + maxDestRdAtomic + "]";
    }

    /** A bring-up's components, open for a wither to change some of them. */
    private static final class Draft {
        int portNum, pkeyIndex, sgidIndex, hopLimit, sl, qkey, timeout, retryCnt, rnrRetry, minRnrTimer;
        int maxRdAtomic, maxDestRdAtomic;
        Set<AccessFlag> remoteAccess;
        Mtu pathMtu;

        Draft(QpBringUp from) {
            portNum = from.portNum; pkeyIndex = from.pkeyIndex; sgidIndex = from.sgidIndex; hopLimit = from.hopLimit;
            sl = from.sl; remoteAccess = from.remoteAccess; qkey = from.qkey; pathMtu = from.pathMtu;
            timeout = from.timeout; retryCnt = from.retryCnt; rnrRetry = from.rnrRetry; minRnrTimer = from.minRnrTimer;
            maxRdAtomic = from.maxRdAtomic; maxDestRdAtomic = from.maxDestRdAtomic;
        }

        QpBringUp build() {
            return new QpBringUp(portNum, pkeyIndex, sgidIndex, hopLimit, sl, remoteAccess, qkey, pathMtu, timeout,
                    retryCnt, rnrRetry, minRnrTimer, maxRdAtomic, maxDestRdAtomic);
        }
    }
}
