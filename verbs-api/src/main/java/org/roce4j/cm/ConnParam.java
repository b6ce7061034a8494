package org.roce4j.cm;

import java.util.Arrays;

import org.roce4j.verbs.NumberText;

/**
 * What {@link CmId#connect} and {@link CmId#accept} send and a CONNECT_REQUEST / ESTABLISHED event
 * carries: {@code struct rdma_conn_param}. The fields are C's {@code uint8_t}s (the QPN 24 bits);
 * a value outside them cannot be written in C and is an {@link IllegalArgumentException} here.
 * How much private data fits depends on the message and the port space ({@link PrivateDataLimits}).
 *
 * @param privateData        the consumer's private data (copied; never null)
 * @param responderResources RDMA READ / atomic requests this side accepts at once (the REQ's/REP's
 *                           responder resources; the peer's initiator depth is capped by it)
 * @param initiatorDepth     RDMA READ / atomic requests this side issues at once
 * @param flowControl        end-to-end flow control (0 or 1)
 * @param retryCount         transport retries on timeout, 0–7 (ignored by {@code accept})
 * @param rnrRetryCount      RNR NAK retries, 0–7 (7: retry forever)
 * @param srq                whether the QP takes its receives from an SRQ
 * @param qpNum              the QPN to announce when the id has no QP of its own ({@code rdma_create_qp}
 *                           not called); 0 otherwise
 */
public record ConnParam(byte[] privateData, int responderResources, int initiatorDepth, int flowControl,
                        int retryCount, int rnrRetryCount, boolean srq, int qpNum) {
    /** {@code private_data_len} is a {@code uint8_t}: no message can carry more than this. */
    public static final int MAX_PRIVATE_DATA = 255;

    /** Copies the private data; checks that each field fits its C type. */
    public ConnParam {
        privateData = privateData == null ? new byte[0] : privateData.clone();
        check(privateData.length, MAX_PRIVATE_DATA, "private data length");
        check(responderResources, 0xFF, "responder_resources");
        check(initiatorDepth, 0xFF, "initiator_depth");
        check(flowControl, 1, "flow_control");
        check(retryCount, 7, "retry_count");
        check(rnrRetryCount, 7, "rnr_retry_count");
        check(qpNum, 0xFFFFFF, "qp_num");
    }

    /**
     * {@return the parameters rping uses (responder resources 1, initiator depth 1, retry count 7,
     * RNR retry count 7), with this private data}
     *
     * @param privateData the consumer's private data, or null for none
     */
    public static ConnParam of(byte[] privateData) {
        return new ConnParam(privateData, 1, 1, 0, 7, 7, false, 0);
    }

    /** {@return {@link #of} with no private data} */
    public static ConnParam defaults() {
        return of(null);
    }

    /**
     * {@return a copy with this private data}
     *
     * @param data the private data
     */
    public ConnParam withPrivateData(byte[] data) {
        return new ConnParam(data, responderResources, initiatorDepth, flowControl, retryCount, rnrRetryCount, srq, qpNum);
    }

    /**
     * {@return a copy with these RDMA READ / atomic depths}
     *
     * @param responder the responder resources
     * @param initiator the initiator depth
     */
    public ConnParam withReadDepths(int responder, int initiator) {
        return new ConnParam(privateData, responder, initiator, flowControl, retryCount, rnrRetryCount, srq, qpNum);
    }

    /**
     * {@return a copy with these retry counts}
     *
     * @param retry    transport retries, 0–7
     * @param rnrRetry RNR retries, 0–7
     */
    public ConnParam withRetries(int retry, int rnrRetry) {
        return new ConnParam(privateData, responderResources, initiatorDepth, flowControl, retry, rnrRetry, srq, qpNum);
    }

    /**
     * {@return a copy announcing this QP number: the application's own QP, for an id without one of
     * {@link CmId#createQp} (rping {@code -q}: {@code conn_param.qp_num = cb->qp->qp_num})}
     *
     * @param qpn the QP number, 24 bits
     */
    public ConnParam withQpNum(int qpn) {
        return new ConnParam(privateData, responderResources, initiatorDepth, flowControl, retryCount, rnrRetryCount, srq, qpn);
    }

    /** {@return a copy of the private data} */
    @Override
    public byte[] privateData() {
        return privateData.clone();
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof ConnParam that && Arrays.equals(privateData, that.privateData)
                && responderResources == that.responderResources && initiatorDepth == that.initiatorDepth
                && flowControl == that.flowControl && retryCount == that.retryCount
                && rnrRetryCount == that.rnrRetryCount && srq == that.srq && qpNum == that.qpNum;
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(privateData) * 31 + qpNum;
    }

    @Override
    public String toString() {
        return "ConnParam[privateData=" + privateData.length + " B, responderResources=" + responderResources
                + ", initiatorDepth=" + initiatorDepth + ", flowControl=" + flowControl + ", retryCount=" + retryCount
                + ", rnrRetryCount=" + rnrRetryCount + ", srq=" + srq + ", qpNum=" + NumberText.qpn(qpNum) + "]";
    }

    static void check(int value, int max, String field) {
        if (value < 0 || value > max) {
            throw new IllegalArgumentException(field + " " + value + " is outside 0.." + max);
        }
    }
}
