package org.roce4j.emulator.cm;

import org.roce4j.wire.mad.ConnectReply;
import org.roce4j.wire.mad.SidrReply;

/**
 * What the communication manager tells the rdma_cm id above a connection: Linux's {@code ib_cm}
 * events ({@code enum ib_cm_event_type}) as {@code cma_ib_handler} receives them. Called under the
 * fabric lock.
 */
interface CmUser {
    /** {@code IB_CM_REP_RECEIVED}: the active side moves its QP to RTR/RTS and sends the RTU (or a REJ). */
    void repReceived(CmConnection connection, ConnectReply reply);

    /** {@code IB_CM_RTU_RECEIVED} or {@code IB_CM_USER_ESTABLISHED} (communication established by a packet). */
    void established(CmConnection connection);

    /** {@code IB_CM_REJ_RECEIVED}: reason and the REJ's private data. */
    void rejected(CmConnection connection, int reason, byte[] privateData);

    /** {@code IB_CM_REQ_ERROR} / {@code IB_CM_REP_ERROR}: the MAD's retries ran out. */
    void unreachable(CmConnection connection);

    /**
     * {@code IB_CM_DREQ_RECEIVED}, {@code IB_CM_DREP_RECEIVED} or {@code IB_CM_DREQ_ERROR} (status −ETIMEDOUT).
     *
     * @param status 0, or −110 when the DREQ went unanswered
     */
    void disconnected(CmConnection connection, int status);

    /** {@code IB_CM_TIMEWAIT_EXIT}. */
    void timewaitExit(CmConnection connection);

    /** {@code IB_CM_SIDR_REP_RECEIVED}: the answer to our SIDR_REQ (its status may be a refusal). */
    void sidrReplyReceived(CmConnection connection, SidrReply reply);
}
