package org.roce4j.verbs;

import java.util.EnumSet;
import java.util.Set;

/** Which fields of a {@link QpAttr} a modify or query uses: {@code enum ibv_qp_attr_mask}, same bits. */
public enum QpAttrMask {
    /** {@code IBV_QP_STATE}: {@link QpAttr#qpState()}, the state to move to. */
    STATE(1),
    /** {@code IBV_QP_CUR_STATE}: {@link QpAttr#curQpState()}, the state the caller believes the QP is in. */
    CUR_STATE(1 << 1),
    /** {@code IBV_QP_EN_SQD_ASYNC_NOTIFY}: {@link QpAttr#enSqdAsyncNotify()}. */
    EN_SQD_ASYNC_NOTIFY(1 << 2),
    /** {@code IBV_QP_ACCESS_FLAGS}: {@link QpAttr#qpAccessFlags()}, the remote operations the responder allows. */
    ACCESS_FLAGS(1 << 3),
    /** {@code IBV_QP_PKEY_INDEX}: {@link QpAttr#pkeyIndex()}. */
    PKEY_INDEX(1 << 4),
    /** {@code IBV_QP_PORT}: {@link QpAttr#portNum()}. */
    PORT(1 << 5),
    /** {@code IBV_QP_QKEY}: {@link QpAttr#qkey()} (UD). */
    QKEY(1 << 6),
    /** {@code IBV_QP_AV}: {@link QpAttr#ahAttr()}, the path to the peer (RC, UC). */
    AV(1 << 7),
    /** {@code IBV_QP_PATH_MTU}: {@link QpAttr#pathMtu()}. */
    PATH_MTU(1 << 8),
    /** {@code IBV_QP_TIMEOUT}: {@link QpAttr#timeout()}, the local ACK timeout. */
    TIMEOUT(1 << 9),
    /** {@code IBV_QP_RETRY_CNT}: {@link QpAttr#retryCnt()}. */
    RETRY_CNT(1 << 10),
    /** {@code IBV_QP_RNR_RETRY}: {@link QpAttr#rnrRetry()}. */
    RNR_RETRY(1 << 11),
    /** {@code IBV_QP_RQ_PSN}: {@link QpAttr#rqPsn()}, the first PSN the responder expects. */
    RQ_PSN(1 << 12),
    /** {@code IBV_QP_MAX_QP_RD_ATOMIC}: {@link QpAttr#maxRdAtomic()}. */
    MAX_QP_RD_ATOMIC(1 << 13),
    /** {@code IBV_QP_ALT_PATH}: the alternate path (not supported: {@link QpAttr} has no alternate-path fields). */
    ALT_PATH(1 << 14),
    /** {@code IBV_QP_MIN_RNR_TIMER}: {@link QpAttr#minRnrTimer()}. */
    MIN_RNR_TIMER(1 << 15),
    /** {@code IBV_QP_SQ_PSN}: {@link QpAttr#sqPsn()}, the first PSN the requester sends. */
    SQ_PSN(1 << 16),
    /** {@code IBV_QP_MAX_DEST_RD_ATOMIC}: {@link QpAttr#maxDestRdAtomic()}. */
    MAX_DEST_RD_ATOMIC(1 << 17),
    /** {@code IBV_QP_PATH_MIG_STATE}: automatic path migration state (not supported). */
    PATH_MIG_STATE(1 << 18),
    /** {@code IBV_QP_CAP}: {@link QpAttr#cap()}, the queue sizes. */
    CAP(1 << 19),
    /** {@code IBV_QP_DEST_QPN}: {@link QpAttr#destQpNum()}, the peer's QP number (RC, UC). */
    DEST_QPN(1 << 20);

    private final int bit;

    QpAttrMask(int bit) {
        this.bit = bit;
    }

    /** {@return the {@code IBV_QP_*} bit} */
    public int bit() {
        return bit;
    }

    /**
     * {@return the {@code ibv_qp_attr_mask} bits of a set}
     *
     * @param mask the fields
     */
    public static int bits(Set<QpAttrMask> mask) {
        int bits = 0;
        for (QpAttrMask m : mask) {
            bits |= m.bit;
        }
        return bits;
    }

    /**
     * {@return the set of an {@code ibv_qp_attr_mask}; bits with no constant here are ignored}
     *
     * @param bits the mask
     */
    public static EnumSet<QpAttrMask> of(int bits) {
        EnumSet<QpAttrMask> mask = EnumSet.noneOf(QpAttrMask.class);
        for (QpAttrMask m : values()) {
            if ((bits & m.bit) != 0) {
                mask.add(m);
            }
        }
        return mask;
    }
}
