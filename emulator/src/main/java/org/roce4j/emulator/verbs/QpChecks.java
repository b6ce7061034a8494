package org.roce4j.emulator.verbs;

import java.util.Set;

import org.roce4j.emulator.DeviceModel;
import org.roce4j.emulator.Quirk;
import org.roce4j.emulator.node.NetworkPath;
import org.roce4j.emulator.node.Rnic;
import org.roce4j.verbs.Errno;
import org.roce4j.verbs.QpAttr;
import org.roce4j.verbs.QpAttrMask;
import org.roce4j.verbs.QpCap;
import org.roce4j.verbs.QpState;
import org.roce4j.verbs.QpTransitions;
import org.roce4j.verbs.QpType;
import org.roce4j.verbs.VerbsException;
import org.roce4j.wire.Psn;

/**
 * What {@code ibv_create_qp} and {@code ibv_modify_qp} accept, checked before anything changes,
 * after rxe's {@code rxe_qp.c} ({@code rxe_qp_chk_cap}, {@code rxe_qp_chk_attr}): a refusal is
 * EINVAL and leaves the QP as it was. Which transitions need which attributes is
 * {@link org.roce4j.verbs.QpTransitions}'; these are the values' ranges against the device.
 */
final class QpChecks {
    /** {@code IB_QP_SET_QKEY}: a Q_Key with this bit set is a controlled one. */
    static final int PRIVILEGED_QKEY_BIT = 0x80000000;
    /** {@code sizeof(struct ib_sge)}: address, length, lkey. */
    private static final int SGE_BYTES = 16;

    private QpChecks() {
    }

    /**
     * The transition a modify asks for against the one table ({@link QpTransitions#check}, what
     * {@code ib_modify_qp_is_ok} reads), as the device applies it.
     */
    static void checkTransition(Rnic rnic, QpType type, QpState current, QpState target, Set<QpAttrMask> mask) {
        boolean stateless = !mask.contains(QpAttrMask.STATE);
        if (!(stateless && rnic.model.has(Quirk.MODIFY_WITHOUT_STATE_SKIPS_THE_TRANSITION_TABLE))) {
            QpTransitions.check(type, current, target, mask);
        }
        if (type == QpType.UC && current == QpState.SQD && target == QpState.SQD && !stateless
                && mask.size() > 1 && rnic.model.has(Quirk.UC_SQD_TO_SQD_REFUSES_OPTIONAL_ATTRIBUTES)) {
            throw new VerbsException(Errno.EINVAL, "ibv_modify_qp: UC SQD -> SQD takes no optional attribute "
                    + "on this device, given " + mask);
        }
    }

    /**
     * {@code ibv_create_qp}'s caps against the device's limits (rxe {@code rxe_qp_chk_cap}); what
     * the QP's queues hold ({@link QueueDepths}), as {@code ibv_query_qp} reports it: rxe reports no
     * receive queue of its own for a QP on an SRQ.
     */
    static QpCap grantedCaps(DeviceModel model, String verb, QpCap cap, boolean onSrq) {
        DeviceLimits limits = model.limits();
        checkCap(verb, "max_send_wr", cap.maxSendWr(), limits.maxQpWr());
        checkCap(verb, "max_send_sge", cap.maxSendSge(), limits.maxSge());
        checkCap(verb, "max_inline_data", cap.maxInlineData(), limits.maxInlineData());
        if (!onSrq) {
            checkCap(verb, "max_recv_wr", cap.maxRecvWr(), limits.maxQpWr());
            checkCap(verb, "max_recv_sge", cap.maxRecvSge(), limits.maxSge());
        }
        int sendWr = QueueDepths.granted(model, cap.maxSendWr());
        int sendSge = cap.maxSendSge();
        int inline = cap.maxInlineData();
        if (model.has(Quirk.SEND_SGES_AND_INLINE_SHARE_ONE_WQE_SIZE)) {
            // rxe_qp_init_req: wqe_size = max(max_send_sge * sizeof(struct ib_sge), max_inline_data)
            int dataSize = Math.max(sendSge * SGE_BYTES, inline);
            sendSge = dataSize / SGE_BYTES;
            inline = dataSize;
        }
        return onSrq ? new QpCap(sendWr, 0, sendSge, 0, inline)
                : new QpCap(sendWr, QueueDepths.granted(model, cap.maxRecvWr()), sendSge, cap.maxRecvSge(), inline);
    }

    /**
     * What {@code ibv_create_qp} writes back into the caller's cap: the granted caps, or on a device
     * with {@link Quirk#CREATE_QP_REPORTS_REQUESTED_DEPTH} the depths that were asked for.
     */
    static QpCap reportedAtCreate(DeviceModel model, QpCap asked, QpCap granted) {
        if (!model.has(Quirk.CREATE_QP_REPORTS_REQUESTED_DEPTH)) {
            return granted;
        }
        return new QpCap(asked.maxSendWr(), granted.maxRecvWr() == 0 ? 0 : asked.maxRecvWr(), granted.maxSendSge(),
                granted.maxRecvSge(), granted.maxInlineData());
    }

    private static void checkCap(String verb, String name, int value, int max) {
        if (value > max) {
            throw Resource.invalid(verb, name + " " + value + " is above the device limit " + max);
        }
    }

    /** Attribute ranges (rxe {@code rxe_qp_chk_attr}, IBTA 11.2.5.3); returns the resolved AV if one is set. */
    static NetworkPath checkAttributes(Rnic rnic, String verb, QpAttr attr, Set<QpAttrMask> mask) {
        if (mask.contains(QpAttrMask.PORT) && attr.portNum() != DeviceLimits.PORT) {
            throw Resource.invalid(verb, "port " + attr.portNum() + " does not exist (the device has port 1 only)");
        }
        if (mask.contains(QpAttrMask.PKEY_INDEX)
                && (attr.pkeyIndex() < 0 || attr.pkeyIndex() >= rnic.model.limits().pkeyTableLength())) {
            throw Resource.invalid(verb, "P_Key index " + attr.pkeyIndex() + " is outside the P_Key table");
        }
        if (mask.contains(QpAttrMask.PATH_MTU) && attr.pathMtu() == null) {
            throw Resource.invalid(verb, "no path MTU");
        }
        // rq_psn and sq_psn wider than 24 bits are not refused: the kernel keeps their low 24 bits
        // (rxe_qp_from_attr: attr->rq_psn & BTH_PSN_MASK; EmulatedQp.apply does the same).
        if (mask.contains(QpAttrMask.QKEY) && (attr.qkey() & PRIVILEGED_QKEY_BIT) != 0 && !rnic.capNetRaw) {
            // uverbs_cmd.c modify_qp: a Q_Key with IB_QP_SET_QKEY (bit 31) set is reserved for privileged
            // processes (IBTA's controlled Q_Keys); without CAP_NET_RAW the kernel answers EPERM.
            throw new VerbsException(Errno.EPERM, verb + ": Q_Key 0x" + Integer.toHexString(attr.qkey())
                    + " has bit 31 set (a controlled Q_Key), which needs CAP_NET_RAW; the device was built without it "
                    + "(SoftRnic.Builder.capNetRaw)");
        }
        if (mask.contains(QpAttrMask.DEST_QPN) && !Psn.isValid(attr.destQpNum())) {
            throw Resource.invalid(verb, "dest_qp_num " + attr.destQpNum() + " is wider than 24 bits");
        }
        checkRange(verb, mask, QpAttrMask.TIMEOUT, "timeout", attr.timeout(), 31);
        checkRange(verb, mask, QpAttrMask.RETRY_CNT, "retry_cnt", attr.retryCnt(), 7);
        checkRange(verb, mask, QpAttrMask.RNR_RETRY, "rnr_retry", attr.rnrRetry(), 7);
        checkRange(verb, mask, QpAttrMask.MIN_RNR_TIMER, "min_rnr_timer", attr.minRnrTimer(), 31);
        checkRange(verb, mask, QpAttrMask.MAX_QP_RD_ATOMIC, "max_rd_atomic", attr.maxRdAtomic(),
                rnic.model.limits().maxQpInitRdAtom());
        checkRange(verb, mask, QpAttrMask.MAX_DEST_RD_ATOMIC, "max_dest_rd_atomic", attr.maxDestRdAtomic(),
                rnic.model.limits().maxQpRdAtom());
        return mask.contains(QpAttrMask.AV) ? EmulatedPd.resolvePath(rnic, verb, attr.ahAttr()) : null;
    }

    private static void checkRange(String verb, Set<QpAttrMask> mask, QpAttrMask bit, String name, int value, int max) {
        if (mask.contains(bit) && (value < 0 || value > max)) {
            throw Resource.invalid(verb, name + " " + value + " is outside 0.." + max);
        }
    }
}
