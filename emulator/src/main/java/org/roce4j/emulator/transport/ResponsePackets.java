package org.roce4j.emulator.transport;

import org.roce4j.emulator.RnicCounter;
import org.roce4j.emulator.node.Rnic;
import org.roce4j.emulator.verbs.EmulatedQp;
import org.roce4j.emulator.verbs.MemoryRegion;
import org.roce4j.wire.AethSyndrome;
import org.roce4j.wire.HeaderType;
import org.roce4j.wire.Opcode;
import org.roce4j.wire.PacketWriter;
import org.roce4j.wire.Position;
import org.roce4j.wire.Psn;

/**
 * The packets an RC responder sends back: ACKs (coalesced: an owed ACK for the latest AckReq PSN
 * covers every PSN before it, IBTA 9.7.5.1.1), NAKs, atomic acknowledgements and RDMA READ
 * responses, each with an AETH carrying the MSN. Responses leave in PSN order: an owed ACK is
 * always sent before any other response.
 */
final class ResponsePackets {
    /** AETH syndrome of a plain ACK: credit count 31, "no credit information" (rxe AETH_ACK_UNLIMITED). */
    static final int ACK_UNLIMITED = AethSyndrome.ack(AethSyndrome.Ack.INVALID_CREDIT_COUNT);
    /** What {@link #sendReadResponses} returns when the region's memory failed under a response. */
    static final int MEMORY_FAULT = -1;

    private final EmulatedQp qp;
    private final Rnic rnic;
    private int ackPsn;

    ResponsePackets(EmulatedQp qp) {
        this.qp = qp;
        this.rnic = qp.rnic;
    }

    /** An ACK the requester asked for (AckReq) is owed; it goes out with the next packet or duty cycle. */
    void owe(int psn) {
        qp.responderOwes |= EmulatedQp.OWES_ACK;
        ackPsn = psn;
        rnic.scheduleResponder(qp);
    }

    void forget() {
        qp.responderOwes &= ~EmulatedQp.OWES_ACK;
    }

    /** Sends the coalesced ACK owed, if any: one ACK for the latest PSN covers all before it. */
    int flushPendingAck(int msn) {
        if ((qp.responderOwes & EmulatedQp.OWES_ACK) == 0) {
            return 0;
        }
        forget();
        writeAcknowledge(msn, ACK_UNLIMITED, ackPsn);
        return 1;
    }

    /** Sends an ACK or NAK now, after any owed ACK (responses leave in PSN order). */
    void sendAcknowledge(int msn, int syndrome, int psn) {
        flushPendingAck(msn);
        writeAcknowledge(msn, syndrome, psn);
    }

    private void writeAcknowledge(int msn, int syndrome, int psn) {
        rnic.count(AethSyndrome.isAck(syndrome) ? RnicCounter.ACKS_SENT
                : AethSyndrome.isRnrNak(syndrome) ? RnicCounter.RNR_NAKS_SENT : RnicCounter.NAKS_SENT);
        rnic.transmit(beginResponse(Opcode.RC_ACKNOWLEDGE, psn).aeth(syndrome, msn).finish(0));
    }

    void sendAtomicAcknowledge(int msn, int psn, long original) {
        rnic.transmit(beginResponse(Opcode.RC_ATOMIC_ACKNOWLEDGE, psn).aeth(ACK_UNLIMITED, msn)
                .atomicAckEth(original).finish(0));
    }

    /** rxe_resp.c send_read_response_ack: the answer to an ATOMIC WRITE, an RDMA READ Response Only of no payload. */
    void sendReadResponseAcknowledge(int msn, int psn) {
        flushPendingAck(msn);
        rnic.transmit(beginResponse(Opcode.RC_RDMA_READ_RESPONSE_ONLY, psn).aeth(ACK_UNLIMITED, msn).finish(0));
    }

    /** A response to the QP's peer: no AckReq, no solicited event (rxe sends them clear). */
    private PacketWriter beginResponse(Opcode opcode, int psn) {
        return rnic.beginFrame(qp.path, qp.sourcePort).bth(opcode, qp.destQpn, psn);
    }

    /**
     * Up to {@code max} READ responses from the resource's cursor, advancing it (rxe
     * {@code read_reply}, one response per call): FIRST/MIDDLE/LAST/ONLY by the response's index in
     * the whole READ, so a replay from the middle sends MIDDLE and LAST. Returns how many were sent.
     */
    int sendReadResponses(ReadAtomicResource res, MemoryRegion region, int max) {
        int mtu = qp.mtu();
        int sent = 0;
        while (sent < max && res.hasMoreResponses()) {
            int i = res.nextIndex;
            int payload = (int) Math.min(mtu, res.remaining);
            Opcode opcode = Opcode.RC_RDMA_READ_RESPONSE_ONLY.at(Position.of(i, res.packets));
            PacketWriter frame = beginResponse(opcode, Psn.add(res.firstPsn, i));
            if (opcode.has(HeaderType.AETH)) { // IBTA 9.4.4: not on MIDDLE responses
                frame.aeth(ACK_UNLIMITED, res.msn);
            }
            if (payload > 0 && !region.load(res.nextVa, rnic.tx(), frame.payloadOffset(), payload)) {
                return MEMORY_FAULT; // the cursor stays on the response that could not be built
            }
            rnic.transmit(frame.finish(payload));
            res.nextIndex = i + 1;
            res.nextVa += payload;
            res.remaining -= payload;
            sent++;
        }
        return sent;
    }
}
