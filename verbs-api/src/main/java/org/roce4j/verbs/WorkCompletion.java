package org.roce4j.verbs;

import java.util.EnumSet;
import java.util.Set;

/**
 * One entry polled from a completion queue: {@code struct ibv_wc}.
 *
 * <p>As in libibverbs, only {@code wrId}, {@code status}, {@code qpNum} and {@code vendorErr} are
 * meaningful when the status is not {@link WcStatus#SUCCESS}.
 *
 * @param wrId            the wr_id of the work request this completes
 * @param status          the completion status
 * @param opcode          what completed
 * @param vendorErr       vendor syndrome for errors (0 when none)
 * @param byteLen         bytes transferred: received bytes (GRH included on UD) or bytes read
 * @param immData         the 32-bit immediate value the peer posted (big-endian on the wire), when {@link WcFlag#WITH_IMM}
 * @param invalidatedRkey the rkey invalidated by a SEND with invalidate, when {@link WcFlag#WITH_INV}
 * @param qpNum           the local QP number
 * @param srcQp           the sender's QP number (UD receive completions)
 * @param wcFlags         bits of {@link WcFlag}
 * @param pkeyIndex       P_Key index (UD receive completions)
 * @param slid            source LID (0 on RoCE)
 * @param sl              service level
 * @param dlidPathBits    DLID path bits (0 on RoCE)
 */
public record WorkCompletion(
        long wrId,
        WcStatus status,
        WcOpcode opcode,
        int vendorErr,
        int byteLen,
        int immData,
        int invalidatedRkey,
        int qpNum,
        int srcQp,
        int wcFlags,
        int pkeyIndex,
        int slid,
        int sl,
        int dlidPathBits) {

    /** {@return whether the status is {@link WcStatus#SUCCESS}} */
    public boolean isSuccess() {
        return status == WcStatus.SUCCESS;
    }

    /**
     * {@return whether a {@code wc_flags} bit is set}
     *
     * @param flag the flag
     */
    public boolean has(WcFlag flag) {
        return flag.isSetIn(wcFlags);
    }

    /** {@return the {@code wc_flags} bits, as a set} */
    public Set<WcFlag> flags() {
        EnumSet<WcFlag> flags = EnumSet.noneOf(WcFlag.class);
        for (WcFlag flag : WcFlag.values()) {
            if (flag.isSetIn(wcFlags)) {
                flags.add(flag);
            }
        }
        return flags;
    }

    /** A one-line description in the style of perftest's and rdma-core's error prints. */
    @Override
    public String toString() {
        StringBuilder text = new StringBuilder()
                .append("wr_id=").append(Long.toUnsignedString(wrId))
                .append(' ').append(status)
                .append(" (").append(status.describe()).append(')')
                .append(" opcode=").append(opcode)
                .append(" byte_len=").append(Integer.toUnsignedString(byteLen))
                .append(" qp_num=").append(NumberText.qpn(qpNum));
        if (has(WcFlag.WITH_IMM)) {
            text.append(" imm_data=0x").append(Integer.toHexString(immData));
        }
        if (has(WcFlag.WITH_INV)) {
            text.append(" invalidated_rkey=").append(NumberText.key(invalidatedRkey));
        }
        if (opcode.isReceive()) {
            text.append(" src_qp=").append(NumberText.qpn(srcQp));
        }
        if (wcFlags != 0) {
            text.append(" flags=").append(flags());
        }
        if (vendorErr != 0) {
            text.append(" vendor_err=0x").append(Integer.toHexString(vendorErr));
        }
        return text.toString();
    }
}
