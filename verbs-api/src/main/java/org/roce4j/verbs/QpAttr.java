package org.roce4j.verbs;

import java.util.EnumSet;
import java.util.Set;

/**
 * Attributes to modify a queue pair with, or a queue pair's attributes as queried:
 * {@code struct ibv_qp_attr}. Each setter also records its {@link QpAttrMask} bit, so
 * {@code qp.modify(attr)} sends exactly the fields that were set; {@code qp.modify(attr, mask)}
 * sends the mask given, as {@code ibv_modify_qp} does.
 */
public final class QpAttr {
    private final EnumSet<QpAttrMask> mask = EnumSet.noneOf(QpAttrMask.class);
    private QpState qpState = QpState.RESET;
    private QpState curQpState = QpState.RESET;
    private Mtu pathMtu = Mtu.MTU_1024;
    private int qkey;
    private int rqPsn;
    private int sqPsn;
    private int destQpNum;
    private Set<AccessFlag> qpAccessFlags = EnumSet.noneOf(AccessFlag.class);
    private QpCap cap = new QpCap(0, 0, 0, 0, 0);
    private AhAttr ahAttr;
    private int pkeyIndex;
    private boolean enSqdAsyncNotify;
    private boolean sqDraining;
    private int maxRdAtomic;
    private int maxDestRdAtomic;
    private int minRnrTimer;
    private int portNum;
    private int timeout;
    private int retryCnt;
    private int rnrRetry;

    /** The fields set so far. */
    public Set<QpAttrMask> mask() {
        return EnumSet.copyOf(mask);
    }

    public QpState qpState() { return qpState; }
    public QpState curQpState() { return curQpState; }
    public Mtu pathMtu() { return pathMtu; }
    public int qkey() { return qkey; }
    public int rqPsn() { return rqPsn; }
    public int sqPsn() { return sqPsn; }
    public int destQpNum() { return destQpNum; }
    public Set<AccessFlag> qpAccessFlags() { return EnumSet.copyOf(qpAccessFlagsOrNone()); }
    public QpCap cap() { return cap; }
    public AhAttr ahAttr() { return ahAttr; }
    public int pkeyIndex() { return pkeyIndex; }
    public boolean enSqdAsyncNotify() { return enSqdAsyncNotify; }
    /** Query only: true while a QP in SQD still has outstanding send work. */
    public boolean sqDraining() { return sqDraining; }
    public int maxRdAtomic() { return maxRdAtomic; }
    public int maxDestRdAtomic() { return maxDestRdAtomic; }
    public int minRnrTimer() { return minRnrTimer; }
    public int portNum() { return portNum; }
    public int timeout() { return timeout; }
    public int retryCnt() { return retryCnt; }
    public int rnrRetry() { return rnrRetry; }

    public QpAttr qpState(QpState state) { qpState = state; mask.add(QpAttrMask.STATE); return this; }
    public QpAttr curQpState(QpState state) { curQpState = state; mask.add(QpAttrMask.CUR_STATE); return this; }
    public QpAttr pathMtu(Mtu mtu) { pathMtu = mtu; mask.add(QpAttrMask.PATH_MTU); return this; }
    public QpAttr qkey(int key) { qkey = key; mask.add(QpAttrMask.QKEY); return this; }
    /** The PSN the responder expects first (24 bits). */
    public QpAttr rqPsn(int psn) { rqPsn = psn; mask.add(QpAttrMask.RQ_PSN); return this; }
    /** The PSN the requester sends first (24 bits). */
    public QpAttr sqPsn(int psn) { sqPsn = psn; mask.add(QpAttrMask.SQ_PSN); return this; }
    public QpAttr destQpNum(int qpn) { destQpNum = qpn; mask.add(QpAttrMask.DEST_QPN); return this; }
    /** What the responder allows remote peers: REMOTE_WRITE, REMOTE_READ, REMOTE_ATOMIC. */
    public QpAttr qpAccessFlags(Set<AccessFlag> flags) {
        qpAccessFlags = flags.isEmpty() ? EnumSet.noneOf(AccessFlag.class) : EnumSet.copyOf(flags);
        mask.add(QpAttrMask.ACCESS_FLAGS);
        return this;
    }
    public QpAttr cap(QpCap capacities) { cap = capacities; mask.add(QpAttrMask.CAP); return this; }
    /** The path to the peer (RC, UC): {@code ah_attr} with mask bit AV. */
    public QpAttr ahAttr(AhAttr path) { ahAttr = path; mask.add(QpAttrMask.AV); return this; }
    public QpAttr pkeyIndex(int index) { pkeyIndex = index; mask.add(QpAttrMask.PKEY_INDEX); return this; }
    public QpAttr enSqdAsyncNotify(boolean notify) {
        enSqdAsyncNotify = notify;
        mask.add(QpAttrMask.EN_SQD_ASYNC_NOTIFY);
        return this;
    }
    /** Outstanding RDMA READs and atomics this QP may have as requester (initiator depth). */
    public QpAttr maxRdAtomic(int n) { maxRdAtomic = n; mask.add(QpAttrMask.MAX_QP_RD_ATOMIC); return this; }
    /** RDMA READs and atomics this QP accepts as responder (responder resources). */
    public QpAttr maxDestRdAtomic(int n) { maxDestRdAtomic = n; mask.add(QpAttrMask.MAX_DEST_RD_ATOMIC); return this; }
    /** The 5-bit RNR NAK timer code of IBTA table 45 this QP's responder sends. */
    public QpAttr minRnrTimer(int code) { minRnrTimer = code; mask.add(QpAttrMask.MIN_RNR_TIMER); return this; }
    public QpAttr portNum(int port) { portNum = port; mask.add(QpAttrMask.PORT); return this; }
    /** Local ACK timeout: 4.096 µs × 2^timeout, 0 = infinite (IBTA 9.7.6.1.3). */
    public QpAttr timeout(int exponent) { timeout = exponent; mask.add(QpAttrMask.TIMEOUT); return this; }
    public QpAttr retryCnt(int count) { retryCnt = count; mask.add(QpAttrMask.RETRY_CNT); return this; }
    /** RNR retries, 7 = infinite. */
    public QpAttr rnrRetry(int count) { rnrRetry = count; mask.add(QpAttrMask.RNR_RETRY); return this; }

    /** For backends filling in a query result: sets the flag without touching the mask. */
    public QpAttr reportSqDraining(boolean draining) { sqDraining = draining; return this; }

    private Set<AccessFlag> qpAccessFlagsOrNone() {
        return qpAccessFlags.isEmpty() ? EnumSet.noneOf(AccessFlag.class) : qpAccessFlags;
    }

    @Override
    public String toString() {
        return "QpAttr" + mask + "{state=" + qpState + ", mtu=" + pathMtu + ", dest_qp=" + destQpNum
                + ", rq_psn=" + rqPsn + ", sq_psn=" + sqPsn + ", qkey=0x" + Integer.toHexString(qkey)
                + ", access=" + qpAccessFlags + ", av=" + ahAttr + "}";
    }
}
