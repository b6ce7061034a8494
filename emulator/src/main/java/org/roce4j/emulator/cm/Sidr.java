package org.roce4j.emulator.cm;

import org.roce4j.wire.mad.CmAttribute;
import org.roce4j.wire.mad.SidrReply;
import org.roce4j.wire.mad.SidrRequest;
import org.roce4j.wire.mad.SidrStatus;

/**
 * SIDR, the UD service ID resolution of IBTA 12.11, on a {@link CmConnection}: cm.c's
 * {@code ib_send_cm_sidr_req}, {@code cm_sidr_req_handler}, {@code ib_send_cm_sidr_rep} and
 * {@code cm_sidr_rep_handler}. One exchange: the request retried until the reply, then IDLE.
 */
final class Sidr {
    private Sidr() {
    }

    /** ib_send_cm_sidr_req: IDLE → SIDR_REQ_SENT, retried; our request ID is our communication ID. */
    static void sendRequest(CmConnection c, SidrRequest request) {
        c.tid = c.cm.formTid(c.localId);
        c.serviceId = request.serviceId();
        c.state = CmState.SIDR_REQ_SENT;
        c.sendWithRetries(CmAttribute.SIDR_REQ, request);
    }

    /** cm_sidr_req_handler: the request is handed to the listener. */
    static void requestReceived(CmConnection c, SidrRequest request, long requestTid) {
        c.tid = requestTid;
        c.state = CmState.SIDR_REQ_RCVD;
        c.serviceId = request.serviceId();
        c.remoteId = request.requestId();
    }

    /** ib_send_cm_sidr_rep: answers the SIDR_REQ (success with the QP and Q_Key, or a refusal) and is done. */
    static void sendReply(CmConnection c, SidrStatus status, int qpn, int qkey, byte[] privateData) {
        if (c.state != CmState.SIDR_REQ_RCVD) {
            return;
        }
        c.send(CmAttribute.SIDR_REP, new SidrReply(c.remoteId, status.code(), 0, qpn, c.serviceId, qkey, new byte[0],
                privateData == null ? new byte[0] : privateData));
        c.cm.sidrAnswered(c);
        c.resetToIdle();
    }

    /** cm_sidr_rep_handler. */
    static void replyReceived(CmConnection c, SidrReply reply) {
        if (c.state != CmState.SIDR_REQ_SENT) {
            c.cm.countStale();
            return;
        }
        c.resetToIdle();
        if (c.user != null) {
            c.user.sidrReplyReceived(c, reply);
        }
    }
}
