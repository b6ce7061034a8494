package org.roce4j.emulator.transport;

import org.roce4j.emulator.RnicCounter;
import org.roce4j.emulator.node.NetworkPath;
import org.roce4j.emulator.node.Rnic;
import org.roce4j.emulator.verbs.EmulatedQp;
import org.roce4j.emulator.verbs.MemoryRegion;
import org.roce4j.wire.HeaderType;
import org.roce4j.wire.Opcode;
import org.roce4j.wire.Operation;
import org.roce4j.wire.Position;
import org.roce4j.wire.Psn;
import org.roce4j.wire.Transport;

/**
 * The packets an RC responder sends back: ACKs (coalesced: an owed ACK for the latest AckReq PSN
 * covers every PSN before it, IBTA 9.7.5.1.1), NAKs, atomic acknowledgements and RDMA READ
 * responses, each with an AETH carrying the MSN. Responses leave in PSN order: an owed ACK is
 * always sent before any other response.
 */
final class ResponsePackets {
    /** AETH syndrome of a plain ACK: credit count 31, "no credit information" (rxe AETH_ACK_UNLIMITED). */
    static final int ACK_UNLIMITED = 0x1F;
    /** What {@link #sendReadResponses} returns when the region's memory failed under a response. */
    static final int MEMORY_FAULT = -1;

    private final EmulatedQp qp;
    private final Rnic rnic;
    private boolean ackPending;
    private int ackPsn;

    ResponsePackets(EmulatedQp qp) {
        this.qp = qp;
        this.rnic = qp.rnic;
    }

    /** An ACK the requester asked for (AckReq) is owed; it goes out with the next packet or duty cycle. */
    void owe(int psn) {
        ackPending = true;
        ackPsn = psn;
        rnic.schedule(qp);
    }

    void forget() {
        ackPending = false;
    }

    /** Sends the coalesced ACK owed, if any: one ACK for the latest PSN covers all before it. */
    int flushPendingAck(int msn) {
        if (!ackPending) {
            return 0;
        }
        ackPending = false;
        writeAcknowledge(msn, ACK_UNLIMITED, ackPsn);
        return 1;
    }

    /** Sends an ACK or NAK now, after any owed ACK (responses leave in PSN order). */
    void sendAcknowledge(int msn, int syndrome, int psn) {
        flushPendingAck(msn);
        writeAcknowledge(msn, syndrome, psn);
    }

    private void writeAcknowledge(int msn, int syndrome, int psn) {
        int type = syndrome >>> 5 & 3;
        rnic.count(type == 0 ? RnicCounter.ACKS_SENT : type == 1 ? RnicCounter.RNR_NAKS_SENT : RnicCounter.NAKS_SENT);
        Opcode opcode = Opcode.RC_ACKNOWLEDGE;
        int bth = beginResponse(opcode, 0, psn);
        writeAeth(rnic.tx, bth + opcode.offsetOf(HeaderType.AETH), syndrome, msn);
        int end = bth + opcode.headersLength();
        rnic.transmit(rnic.frameWriter.finish(rnic.tx, qp.path.ipv6, end, 0));
    }

    void sendAtomicAcknowledge(int msn, int psn, long original) {
        Opcode opcode = Opcode.RC_ATOMIC_ACKNOWLEDGE;
        int bth = beginResponse(opcode, 0, psn);
        writeAeth(rnic.tx, bth + opcode.offsetOf(HeaderType.AETH), ACK_UNLIMITED, msn);
        NetworkOrder.i64(rnic.tx, bth + opcode.offsetOf(HeaderType.ATOMIC_ACK_ETH), original);
        int end = bth + opcode.headersLength();
        rnic.transmit(rnic.frameWriter.finish(rnic.tx, qp.path.ipv6, end, 0));
    }

    private int beginResponse(Opcode opcode, int payload, int psn) {
        NetworkPath path = qp.path;
        int bth = rnic.frameWriter.writeNetworkHeaders(rnic.tx, path, rnic.destinationMac(path), qp.sourcePort,
                FrameWriter.transportLength(opcode, payload));
        FrameWriter.writeBth(rnic.tx, bth, opcode, false, payload, qp.destQpn, false, psn);
        return bth;
    }

    private static void writeAeth(byte[] b, int at, int syndrome, int msn) {
        NetworkOrder.u8(b, at, syndrome);
        NetworkOrder.u24(b, at + 1, msn);
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
            Position position = Opcodes.position(i, res.packets);
            Opcode opcode = Opcodes.of(Transport.RC, switch (position) {
                case FIRST -> Operation.RDMA_READ_RESPONSE_FIRST;
                case MIDDLE -> Operation.RDMA_READ_RESPONSE_MIDDLE;
                case LAST -> Operation.RDMA_READ_RESPONSE_LAST;
                case ONLY -> Operation.RDMA_READ_RESPONSE_ONLY;
            });
            byte[] b = rnic.tx;
            int bth = beginResponse(opcode, payload, Psn.add(res.firstPsn, i));
            if (opcode.has(HeaderType.AETH)) {
                writeAeth(b, bth + opcode.offsetOf(HeaderType.AETH), ACK_UNLIMITED, res.msn);
            }
            int at = bth + opcode.headersLength();
            if (payload > 0 && !region.load(res.nextVa, b, at, payload)) {
                return MEMORY_FAULT; // the cursor stays on the response that could not be built
            }
            rnic.transmit(rnic.frameWriter.finish(b, qp.path.ipv6, at + payload, payload));
            res.nextIndex = i + 1;
            res.nextVa += payload;
            res.remaining -= payload;
            sent++;
        }
        return sent;
    }
}
