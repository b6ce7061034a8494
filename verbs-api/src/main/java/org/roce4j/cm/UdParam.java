package org.roce4j.cm;

import java.util.Arrays;
import java.util.Objects;
import org.roce4j.verbs.AhAttr;
import org.roce4j.verbs.NumberText;

/**
 * What an ESTABLISHED event of a UD id carries (a UD id)
 * {@code struct rdma_ud_param}, the SIDR reply's answer (IBTA 12.11).
 *
 * @param privateData the peer's private data (copied; never null)
 * @param ahAttr      the address vector to send to the peer with
 * @param qpNum       the peer's QPN
 * @param qkey        the peer's Q_Key (rdma_cm's {@code RDMA_UDP_QKEY} 0x01234567 in the UDP port space)
 */
public record UdParam(byte[] privateData, AhAttr ahAttr, int qpNum, int qkey) {
    /** rdma_cm's Q_Key for the UDP port space ({@code RDMA_UDP_QKEY}). */
    public static final int RDMA_UDP_QKEY = 0x01234567;

    /** Copies the private data; requires the address vector. */
    public UdParam {
        privateData = privateData == null ? new byte[0] : privateData.clone();
        ConnParam.check(privateData.length, ConnParam.MAX_PRIVATE_DATA, "private data length");
        Objects.requireNonNull(ahAttr, "ahAttr");
        ConnParam.check(qpNum, 0xFFFFFF, "qp_num");
    }

    /** {@return a copy of the private data} */
    @Override
    public byte[] privateData() {
        return privateData.clone();
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof UdParam that && Arrays.equals(privateData, that.privateData)
                && ahAttr.equals(that.ahAttr) && qpNum == that.qpNum && qkey == that.qkey;
    }

    @Override
    public int hashCode() {
        return Objects.hash(ahAttr, qpNum, qkey) * 31 + Arrays.hashCode(privateData);
    }

    @Override
    public String toString() {
        return "UdParam[privateData=" + privateData.length + " B, ahAttr=" + ahAttr + ", qpNum="
                + NumberText.qpn(qpNum) + ", qkey=" + NumberText.key(qkey) + "]";
    }
}
