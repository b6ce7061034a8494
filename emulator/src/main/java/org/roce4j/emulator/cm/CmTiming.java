package org.roce4j.emulator.cm;

/**
 * The numbers the CM's timers come from, as Linux's {@code cm.c} and {@code cma.c} compute them,
 * and the path values rdma_cm gives a RoCE route. The REQ of rping (rxe_rping_cm.pcap) carries
 * them: remote and local CM response timeout 20, max CM retries 15, local ACK timeout 19.
 */
final class CmTiming {
    /** −ETIMEDOUT: what an unanswered REQ, REP or DREQ, and an unresolved neighbour, report. */
    static final int ETIMEDOUT = -110;
    /** cma.c {@code CMA_CM_RESPONSE_TIMEOUT}: 4.096 µs × 2^20 ≈ 4.3 s for the peer's CM to answer. */
    static final int CMA_CM_RESPONSE_TIMEOUT = 20;
    /** cma.c {@code CMA_MAX_CM_RETRIES}. */
    static final int CMA_MAX_CM_RETRIES = 15;
    /**
     * cma.c {@code CMA_IBOE_PACKET_LIFETIME} of the kernel that made the reference captures: their REQ's
     * local ACK timeout 19 is {@code cm_ack_timeout(15, 18)}.
     */
    static final int IBOE_PACKET_LIFETIME = 18;
    /** rxe's {@code RXE_LOCAL_CA_ACK_DELAY}: the REP's target ACK delay (15 in the reference capture). */
    static final int CA_ACK_DELAY = 15;
    /** cma.c {@code CMA_CM_MRA_SETTING}: the service timeout of the MRA a slow consumer's REQ gets (2^24 × 4.096 µs ≈ 69 s). */
    static final int MRA_SERVICE_TIMEOUT = 24;

    private CmTiming() {
    }

    /** cm.c {@code cm_convert_to_ms}: 4.096 µs × 2^iba_time, approximated as {@code 1 << (iba_time - 8)} ms. */
    static long toMillis(int ibaTime) {
        return 1L << Math.max(ibaTime - 8, 0);
    }

    /** cm.c {@code cm_ack_timeout}: the local ACK timeout from the peer's ACK delay and the path's packet life time. */
    static int ackTimeout(int caAckDelay, int packetLifeTime) {
        int ackTimeout = packetLifeTime + 1;
        if (ackTimeout >= caAckDelay) {
            ackTimeout += caAckDelay >= ackTimeout - 1 ? 1 : 0;
        } else {
            ackTimeout = caAckDelay + (ackTimeout >= caAckDelay - 1 ? 1 : 0);
        }
        return Math.min(31, ackTimeout);
    }

    /** cm.c {@code ib_send_cm_req}: a REQ waits twice the packet life time plus the peer's response time. */
    static long reqTimeoutMs(int packetLifeTime, int remoteCmResponseTimeout) {
        return toMillis(packetLifeTime) * 2 + toMillis(remoteCmResponseTimeout);
    }

    static byte[] guidBytes(long guid) {
        byte[] b = new byte[8];
        for (int i = 0; i < 8; i++) {
            b[i] = (byte) (guid >>> (56 - 8 * i));
        }
        return b;
    }
}
