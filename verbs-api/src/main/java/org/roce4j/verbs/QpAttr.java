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

    /** Attributes with nothing set (an empty mask), to fill in with the setters. */
    public QpAttr() {
    }

    /** {@return the fields set so far: the mask {@code qp.modify(attr)} sends} */
    public Set<QpAttrMask> mask() {
        return EnumSet.copyOf(mask);
    }

    /** {@return the state to move to, or the state queried ({@code qp_state})} */
    public QpState qpState() { return qpState; }
    /** {@return the state the caller believes the QP is in ({@code cur_qp_state})} */
    public QpState curQpState() { return curQpState; }
    /** {@return the path MTU of RC and UC ({@code path_mtu})} */
    public Mtu pathMtu() { return pathMtu; }
    /** {@return the Q_Key of a UD QP ({@code qkey})} */
    public int qkey() { return qkey; }
    /** {@return the first PSN the responder expects ({@code rq_psn})} */
    public int rqPsn() { return rqPsn; }
    /** {@return the first PSN the requester sends ({@code sq_psn})} */
    public int sqPsn() { return sqPsn; }
    /** {@return the peer's QP number, RC and UC ({@code dest_qp_num})} */
    public int destQpNum() { return destQpNum; }
    /** {@return what the responder allows remote peers ({@code qp_access_flags})} */
    public Set<AccessFlag> qpAccessFlags() { return EnumSet.copyOf(qpAccessFlagsOrNone()); }
    /** {@return the queue sizes ({@code cap})} */
    public QpCap cap() { return cap; }
    /** {@return the path to the peer, RC and UC ({@code ah_attr})} */
    public AhAttr ahAttr() { return ahAttr; }
    /** {@return the P_Key index ({@code pkey_index})} */
    public int pkeyIndex() { return pkeyIndex; }
    /** {@return whether reaching SQD raises SQ_DRAINED ({@code en_sqd_async_notify})} */
    public boolean enSqdAsyncNotify() { return enSqdAsyncNotify; }
    /** {@return query only: true while a QP in SQD still has outstanding send work ({@code sq_draining})} */
    public boolean sqDraining() { return sqDraining; }
    /** {@return RDMA READs and atomics outstanding as requester ({@code max_rd_atomic})} */
    public int maxRdAtomic() { return maxRdAtomic; }
    /** {@return RDMA READs and atomics accepted as responder ({@code max_dest_rd_atomic})} */
    public int maxDestRdAtomic() { return maxDestRdAtomic; }
    /** {@return the RNR NAK timer code the responder sends, IBTA table 45 ({@code min_rnr_timer})} */
    public int minRnrTimer() { return minRnrTimer; }
    /** {@return the port, from 1 ({@code port_num})} */
    public int portNum() { return portNum; }
    /** {@return the local ACK timeout exponent: 4.096 µs × 2^timeout, 0 = infinite ({@code timeout})} */
    public int timeout() { return timeout; }
    /** {@return retries after ACK timeouts and sequence NAKs ({@code retry_cnt})} */
    public int retryCnt() { return retryCnt; }
    /** {@return retries after RNR NAKs, 7 = infinite ({@code rnr_retry})} */
    public int rnrRetry() { return rnrRetry; }

    /**
     * {@return these attributes, with {@link QpAttrMask#STATE} set}
     *
     * @param state the state to move to
     */
    public QpAttr qpState(QpState state) { qpState = state; mask.add(QpAttrMask.STATE); return this; }
    /**
     * {@return these attributes, with {@link QpAttrMask#CUR_STATE} set}
     *
     * @param state the state the caller believes the QP is in
     */
    public QpAttr curQpState(QpState state) { curQpState = state; mask.add(QpAttrMask.CUR_STATE); return this; }
    /**
     * {@return these attributes, with {@link QpAttrMask#PATH_MTU} set}
     *
     * @param mtu the path MTU
     */
    public QpAttr pathMtu(Mtu mtu) { pathMtu = mtu; mask.add(QpAttrMask.PATH_MTU); return this; }
    /**
     * {@return these attributes, with {@link QpAttrMask#QKEY} set}
     *
     * @param key the Q_Key
     */
    public QpAttr qkey(int key) { qkey = key; mask.add(QpAttrMask.QKEY); return this; }
    /**
     * {@return these attributes, with {@link QpAttrMask#RQ_PSN} set}
     *
     * @param psn the first PSN the responder expects (24 bits)
     */
    public QpAttr rqPsn(int psn) { rqPsn = psn; mask.add(QpAttrMask.RQ_PSN); return this; }
    /**
     * {@return these attributes, with {@link QpAttrMask#SQ_PSN} set}
     *
     * @param psn the first PSN the requester sends (24 bits)
     */
    public QpAttr sqPsn(int psn) { sqPsn = psn; mask.add(QpAttrMask.SQ_PSN); return this; }
    /**
     * {@return these attributes, with {@link QpAttrMask#DEST_QPN} set}
     *
     * @param qpn the peer's QP number
     */
    public QpAttr destQpNum(int qpn) { destQpNum = qpn; mask.add(QpAttrMask.DEST_QPN); return this; }
    /**
     * {@return these attributes, with {@link QpAttrMask#ACCESS_FLAGS} set}
     *
     * @param flags what the responder allows: REMOTE_WRITE, REMOTE_READ, REMOTE_ATOMIC
     */
    public QpAttr qpAccessFlags(Set<AccessFlag> flags) {
        qpAccessFlags = flags.isEmpty() ? EnumSet.noneOf(AccessFlag.class) : EnumSet.copyOf(flags);
        mask.add(QpAttrMask.ACCESS_FLAGS);
        return this;
    }
    /**
     * {@return these attributes, with {@link QpAttrMask#CAP} set}
     *
     * @param capacities the queue sizes
     */
    public QpAttr cap(QpCap capacities) { cap = capacities; mask.add(QpAttrMask.CAP); return this; }
    /**
     * {@return these attributes, with {@link QpAttrMask#AV} set}
     *
     * @param path the path to the peer (RC, UC)
     */
    public QpAttr ahAttr(AhAttr path) { ahAttr = path; mask.add(QpAttrMask.AV); return this; }
    /**
     * {@return these attributes, with {@link QpAttrMask#PKEY_INDEX} set}
     *
     * @param index the P_Key index
     */
    public QpAttr pkeyIndex(int index) { pkeyIndex = index; mask.add(QpAttrMask.PKEY_INDEX); return this; }
    /**
     * {@return these attributes, with {@link QpAttrMask#EN_SQD_ASYNC_NOTIFY} set}
     *
     * @param notify whether reaching SQD raises SQ_DRAINED
     */
    public QpAttr enSqdAsyncNotify(boolean notify) {
        enSqdAsyncNotify = notify;
        mask.add(QpAttrMask.EN_SQD_ASYNC_NOTIFY);
        return this;
    }
    /**
     * {@return these attributes, with {@link QpAttrMask#MAX_QP_RD_ATOMIC} set}
     *
     * @param n RDMA READs and atomics this QP may have outstanding as requester (initiator depth)
     */
    public QpAttr maxRdAtomic(int n) { maxRdAtomic = n; mask.add(QpAttrMask.MAX_QP_RD_ATOMIC); return this; }
    /**
     * {@return these attributes, with {@link QpAttrMask#MAX_DEST_RD_ATOMIC} set}
     *
     * @param n RDMA READs and atomics this QP accepts as responder (responder resources)
     */
    public QpAttr maxDestRdAtomic(int n) { maxDestRdAtomic = n; mask.add(QpAttrMask.MAX_DEST_RD_ATOMIC); return this; }
    /**
     * {@return these attributes, with {@link QpAttrMask#MIN_RNR_TIMER} set}
     *
     * @param code the 5-bit RNR NAK timer code of IBTA table 45 this QP's responder sends
     */
    public QpAttr minRnrTimer(int code) { minRnrTimer = code; mask.add(QpAttrMask.MIN_RNR_TIMER); return this; }
    /**
     * {@return these attributes, with {@link QpAttrMask#PORT} set}
     *
     * @param port the port, from 1
     */
    public QpAttr portNum(int port) { portNum = port; mask.add(QpAttrMask.PORT); return this; }
    /**
     * {@return these attributes, with {@link QpAttrMask#TIMEOUT} set}
     *
     * @param exponent the local ACK timeout: 4.096 µs × 2^exponent, 0 = infinite (IBTA 9.7.6.1.3)
     */
    public QpAttr timeout(int exponent) { timeout = exponent; mask.add(QpAttrMask.TIMEOUT); return this; }
    /**
     * {@return these attributes, with {@link QpAttrMask#RETRY_CNT} set}
     *
     * @param count retries after ACK timeouts and sequence NAKs (0 to 7)
     */
    public QpAttr retryCnt(int count) { retryCnt = count; mask.add(QpAttrMask.RETRY_CNT); return this; }
    /**
     * {@return these attributes, with {@link QpAttrMask#RNR_RETRY} set}
     *
     * @param count retries after RNR NAKs (0 to 7; 7 = infinite)
     */
    public QpAttr rnrRetry(int count) { rnrRetry = count; mask.add(QpAttrMask.RNR_RETRY); return this; }

    /**
     * {@return these attributes; for backends filling in a query result: sets the flag without touching the mask}
     *
     * @param draining whether a QP in SQD still has outstanding send work
     */
    public QpAttr reportSqDraining(boolean draining) { sqDraining = draining; return this; }

    private Set<AccessFlag> qpAccessFlagsOrNone() {
        return qpAccessFlags.isEmpty() ? EnumSet.noneOf(AccessFlag.class) : qpAccessFlags;
    }

    @Override
    public String toString() {
        return "QpAttr" + mask + "{state=" + qpState + ", mtu=" + pathMtu + ", dest_qp=" + NumberText.qpn(destQpNum)
                + ", rq_psn=" + NumberText.psn(rqPsn) + ", sq_psn=" + NumberText.psn(sqPsn) + ", qkey=" + NumberText.key(qkey)
                + ", access=" + qpAccessFlags + ", av=" + ahAttr + "}";
    }
}
