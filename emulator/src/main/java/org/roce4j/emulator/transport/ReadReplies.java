package org.roce4j.emulator.transport;

import org.roce4j.emulator.RnicCounter;
import org.roce4j.emulator.verbs.MemoryRegion;
import org.roce4j.emulator.verbs.MemoryRegionTable;
import org.roce4j.emulator.node.Rnic;
import org.roce4j.emulator.verbs.EmulatedQp;
import org.roce4j.verbs.AccessFlag;
import org.roce4j.verbs.AsyncEventType;
import org.roce4j.wire.AethSyndrome;
import org.roce4j.wire.NakCode;
import org.roce4j.wire.OperationKind;
import org.roce4j.wire.PacketInfo;
import org.roce4j.wire.Psn;

/**
 * The RDMA READ responses a responder owes, sent a turn at a time as the link has room, never all
 * at once: a 256 MiB READ is 262,144 responses at MTU 1024, and building them in one go on the
 * receive path overflows any transmit queue. As rxe: {@code read_reply} (rxe_resp.c) sends one
 * response per run of the responder and keeps its place in {@code qp->resp.res}; {@code do_task}
 * (rxe_task.c) runs it at most {@code RXE_MAX_ITERATIONS} (1024) times and then reschedules the task.
 * Here a turn sends at most {@link #RESPONSES_PER_TURN}, and only while the link's transmit queue
 * holds fewer than {@link Rnic#READ_QUEUE_HIGH} frames; a READ that finds no room waits for the
 * link to drain ({@link Rnic#waitForLinkRoom}). The in-process fabric has no transmit queue: there
 * a READ only takes turns.
 *
 * <p>Order: rxe keeps the READ request at the head of {@code qp->req_pkts} until its last response
 * is sent, so every later request waits behind it. Requests are not queued here: a request that
 * arrives while responses are owed first has them sent ({@link #admits}) — fewer than a requester's
 * window (rxe's and ours: 128 PSNs) when the requester keeps one; past {@link #CATCH_UP_LIMIT} the
 * request is dropped and counted, as a NIC drops what its receive buffer cannot hold, and the
 * requester sends it again. A duplicate READ moves the cursor to the PSN it asks for, and a
 * duplicate atomic abandons the READ being sent (rxe {@code duplicate_request} makes either the
 * current {@code resp.res}): the requester went back and asks for what it lacks.
 */
public final class ReadReplies {
    /** Responses one turn sends before the next QP gets its turn (rxe: RXE_MAX_ITERATIONS). */
    static final int RESPONSES_PER_TURN = Rnic.PACKETS_PER_TURN;
    /** The most owed responses a newly arrived request makes the responder send at once. */
    static final int CATCH_UP_LIMIT = 2 * SendWindow.MAX_UNACKED_PSNS;

    private final EmulatedQp qp;
    private final Rnic rnic;
    private final Responder responder;
    private final ResponsePackets out;
    /** The READ whose responses are being sent (rxe {@code qp->resp.res}), or null. */
    private ReadAtomicResource active;

    ReadReplies(EmulatedQp qp, Responder responder, ResponsePackets out) {
        this.qp = qp;
        this.rnic = qp.rnic;
        this.responder = responder;
        this.out = out;
    }

    /** A READ just executed: its responses from the first, the first turn now. */
    void start(ReadAtomicResource res) {
        res.nextIndex = 0;
        res.nextVa = res.va;
        res.remaining = res.length;
        res.msn = responder.msn;
        activate(res);
        turn();
    }

    /**
     * A duplicate READ (IBTA 9.7.5.1.5, C9-107): its responses again from the PSN it asks for, at
     * the address and length it names (checked by the caller to lie inside the READ executed).
     */
    void replay(ReadAtomicResource res, int psn, long va, long length) {
        res.nextIndex = Psn.distance(res.firstPsn, psn);
        res.nextVa = va;
        res.remaining = length;
        res.msn = responder.msn;
        activate(res);
        turn();
    }

    /** The QP was reset or went to the error state: nothing more is sent. */
    void stop() {
        activate(null);
    }

    /** Every change of {@link #active}: the QP's {@link EmulatedQp#responderOwes} says whether one is. */
    private void activate(ReadAtomicResource res) {
        active = res;
        if (res == null) {
            qp.responderOwes &= ~EmulatedQp.OWES_READ_RESPONSES;
        } else {
            qp.responderOwes |= EmulatedQp.OWES_READ_RESPONSES;
        }
    }

    /** From the QP's duty cycle: the next turn of the READ being sent, if any. */
    public int run() {
        return active == null ? 0 : turn();
    }

    /**
     * Whether a request may be processed now. While responses are owed, rxe processes nothing
     * else: a duplicate READ or atomic replaces the READ being sent; any other request has the
     * owed responses sent first, unless more than {@link #CATCH_UP_LIMIT} are owed — then it is
     * dropped (and counted) and the requester's retry brings it again.
     */
    boolean admits(PacketInfo p) {
        ReadAtomicResource res = active;
        if (res == null) {
            return true;
        }
        OperationKind kind = p.opcode().kind();
        if (Psn.compare(p.psn(), responder.expectedPsn) < 0) {
            if (kind == OperationKind.RDMA_READ_REQUEST) {
                return true; // a valid one moves the cursor (replay); an invalid one is dropped, this READ goes on
            }
            if (kind == OperationKind.ATOMIC) {
                activate(null); // the requester went back before this READ and will ask for it again
                return true;
            }
        }
        int owed = res.packets - res.nextIndex;
        if (owed > CATCH_UP_LIMIT) {
            rnic.count(RnicCounter.DROPPED_BEHIND_READ);
            return false;
        }
        send(res, owed);
        activate(null);
        return !res.hasMoreResponses(); // false: the region went away meanwhile, the QP is in the error state
    }

    private int turn() {
        ReadAtomicResource res = active;
        int room = rnic.readResponseRoom();
        int sent = room > 0 ? send(res, Math.min(room, RESPONSES_PER_TURN)) : 0;
        if (active == null) {
            return sent; // failed: the QP is in the error state
        }
        if (!res.hasMoreResponses()) {
            activate(null);
        } else if (rnic.readResponseRoom() > 0) {
            rnic.scheduleResponder(qp);
        } else {
            rnic.waitForLinkRoom(qp);
        }
        return sent;
    }

    private int send(ReadAtomicResource res, int max) {
        MemoryRegion region = null;
        if (res.remaining > 0) {
            // rxe read_reply → rxe_recheck_mr: the region may have been invalidated or deregistered
            // since the READ executed; then class C, remote access error, and the QP goes to error.
            if (rnic.memoryRegions.checkRemote(res.rkey, qp.pd, qp, AccessFlag.REMOTE_READ.bit(), res.nextVa,
                    res.remaining) != MemoryRegionTable.Check.OK) {
                accessError(res);
                return 0;
            }
            region = rnic.memoryRegions.remoteRegion(res.rkey);
        }
        int sent = out.sendReadResponses(res, region, max);
        rnic.noteReadFramesQueued();
        if (sent == ResponsePackets.MEMORY_FAULT) {
            // The keys were right but the memory could not be read (its arena closed under the READ):
            // the responder's own fault, class A as in Responder#memoryFault — remote operational error.
            rnic.count(RnicCounter.MEMORY_ACCESS_ERRORS);
            fail(res, NakCode.REMOTE_OPERATIONAL_ERROR, AsyncEventType.QP_FATAL);
            return 0;
        }
        return sent;
    }

    private void accessError(ReadAtomicResource res) {
        fail(res, NakCode.REMOTE_ACCESS_ERROR, AsyncEventType.QP_ACCESS_ERR);
    }

    /**
     * NAKs at the response the cursor is on (those before it were sent, so the NAK does not look
     * stale to the requester), raises the event, and moves the QP to the error state.
     */
    private void fail(ReadAtomicResource res, NakCode nak, AsyncEventType event) {
        activate(null);
        out.sendAcknowledge(responder.msn, AethSyndrome.nak(nak), Psn.add(res.firstPsn, res.nextIndex));
        qp.raise(event);
        qp.enterError();
    }
}
