package org.roce4j.tools.analyze;

import java.util.ArrayDeque;
import java.util.EnumMap;
import java.util.Map;
import java.util.TreeMap;
import org.roce4j.wire.Aeth;
import org.roce4j.wire.AethSyndrome;
import org.roce4j.wire.AtomicAckEth;
import org.roce4j.wire.NakCode;
import org.roce4j.wire.OperationKind;
import org.roce4j.wire.Position;
import org.roce4j.wire.Psn;
import org.roce4j.wire.Reth;
import org.roce4j.wire.RocePacket;

/**
 * One requester-to-responder direction of an RC connection: the requests one QP sends and the
 * responses it gets back. Follows the requester's PSNs (new, resent, skipped), the outstanding
 * messages until acknowledged, what came back between go-backs (to name each retransmission's
 * cause), and the responder's expected PSN as the capture shows it (to spot duplicates).
 */
final class RcFlow {
    /** More outstanding messages than any real send queue holds: the capture lacks the responses. */
    private static final int OUTSTANDING_LIMIT = 1 << 16;

    final FlowKey requests;
    /** The requester's QP, learned from the first response (its destination QP); -1 until then. */
    int requesterQp = -1;
    private final MtuEstimate mtu;
    private final ViolationLog violations;

    private boolean started;
    private int nextPsn; // one past the highest PSN sent
    private OutstandingMessage openRead; // a READ whose PSN range the PMTU did not yet tell
    private OutstandingMessage sending; // FIRST seen, LAST not yet
    private final ArrayDeque<OutstandingMessage> outstanding = new ArrayDeque<>();
    private int responderExpectedPsn;
    private int acknowledgedThrough = -1; // the last PSN of the last message acknowledged; -1 before the first

    private boolean inGoBack;
    private boolean responseSinceResend;
    private int goBackNextPsn;
    private int nakedPsn = -1; // sequence-error NAK received since the last go-back
    private long rnrAtNanos = -1;
    private long rnrDelayNanos;
    private boolean implicitNak;
    /** The last request, for a caller that follows frame by frame (the ladder): resent, and in which go-back. */
    private Resend lastResend;
    private RetransmissionCause goBackCause;

    final LatencyStats latency = new LatencyStats();
    final GoodputSeries goodput = new GoodputSeries();
    final DuplicateTracker duplicates = new DuplicateTracker();
    final Map<RetransmissionCause, Long> retransmissions = new EnumMap<>(RetransmissionCause.class);
    final Map<String, Long> naksByCode = new TreeMap<>();
    long requestPackets;
    long responsePackets;
    long messagesSent;
    long messagesAcknowledged;
    long resentPackets;
    long psnGaps;
    long missingPsns;
    long rnrNaks;
    long rnrWaited;
    long rnrNotWaited;
    long resumedPastNakedPsn;
    long untrackedMessages;
    long responsesNotDelivered;

    RcFlow(FlowKey requests, MtuEstimate mtu, ViolationLog violations) {
        this.requests = requests;
        this.mtu = mtu;
        this.violations = violations;
    }

    String requesterName() {
        return requests.source().getHostAddress() + " QP " + CaptureAnalysis.qp(requesterQp);
    }

    String responderName() {
        return requests.destination().getHostAddress() + " QP " + CaptureAnalysis.qp(requests.destQp());
    }

    boolean started() {
        return started;
    }

    /** True when {@code psn} is one this requester has sent: the test that pairs responses with their flow. */
    boolean hasSent(int psn) {
        return started && Psn.isBefore(psn, nextPsn) && Psn.distance(psn, nextPsn) <= OUTSTANDING_LIMIT * 64;
    }

    /** A request packet; {@code delivered} is false when the capture says it never reached the responder. */
    void request(long frame, long nanos, RocePacket packet, boolean delivered) {
        int psn = packet.bth().psn();
        OperationKind kind = packet.opcode().kind();
        Position position = packet.opcode().position();
        mtu.observe(position, packet.payloadLength());
        requestPackets++;
        lastResend = null;
        if (!started) {
            started = true;
            nextPsn = psn;
            responderExpectedPsn = psn;
        }
        if (Psn.isBefore(psn, nextPsn)) {
            resend(frame, nanos, psn, packet);
        } else {
            if (openRead != null) {
                closeReadRange(psn);
            } else if (psn != nextPsn) {
                psnGaps++;
                missingPsns += Psn.distance(nextPsn, psn);
            }
            inGoBack = false;
            sendNew(nanos, psn, kind, position, packet);
        }
        if (delivered) {
            responderReceives(psn, kind);
        }
    }

    private void sendNew(long nanos, int psn, OperationKind kind, Position position, RocePacket packet) {
        if (position.startsMessage() && sending != null) { // its LAST was lost before the capture point
            sending.endPsn = psn;
        }
        if (position.startsMessage() || sending == null) { // a MIDDLE or LAST after a gap starts what we can see
            Reth reth = packet.header(Reth.class).orElse(null);
            sending = new OutstandingMessage(kind, psn, nanos, reth == null ? 0 : reth.virtualAddress(),
                    reth == null ? 0 : reth.dmaLengthUnsigned());
            sending.bytes = kind == OperationKind.SEND ? -1 : sending.readLength;
            sending.sawStart = position.startsMessage();
            track(sending);
            messagesSent++;
        }
        OutstandingMessage message = sending;
        nextPsn = Psn.next(psn);
        if (kind == OperationKind.RDMA_READ_REQUEST) {
            if (mtu.known()) { // IBTA 9.4.4: a READ of n PMTUs takes n response PSNs
                message.endPsn = Psn.add(psn, Position.packetCount(message.readLength, mtu.bytes()));
                nextPsn = message.endPsn;
            } else {
                openRead = message;
            }
            sending = null;
            return;
        }
        if (position.endsMessage()) {
            if (kind == OperationKind.SEND) {
                message.bytes = packet.payloadLength();
            }
            message.endPsn = nextPsn;
            sending = null;
        }
    }

    private void track(OutstandingMessage message) {
        if (outstanding.size() == OUTSTANDING_LIMIT) {
            outstanding.removeFirst();
            untrackedMessages++;
        }
        outstanding.addLast(message);
    }

    /** The READ's range ends where the next new request (or its last response) shows it does. */
    private void closeReadRange(int end) {
        openRead.endPsn = end;
        nextPsn = end;
        if (Psn.isAfter(responderExpectedPsn, openRead.firstPsn)) {
            responderExpectedPsn = end;
        }
        openRead = null;
    }

    private void resend(long frame, long nanos, int psn, RocePacket packet) {
        resentPackets++;
        if (packet.opcode().position().startsMessage() && (acknowledgedThrough < 0 || Psn.isAfter(psn, acknowledgedThrough))
                && find(psn, packet.opcode().kind()) == null) {
            adoptLostStart(nanos, psn, packet);
        }
        if (sending != null && sending.contains(psn) && packet.opcode().position().endsMessage()) {
            sending.endPsn = Psn.next(psn); // the first LAST the capture shows is a resent one
            if (sending.kind == OperationKind.SEND) {
                sending.bytes = packet.payloadLength();
            }
            sending = null;
        }
        // A go-back resends upward; one that goes back again is a new one. A forward skip continues
        // it when nothing came back in between: the skipped resent packets were lost before the
        // capture point (or corrupted, and the capture's bytes cannot be trusted).
        boolean continues = inGoBack && (psn == goBackNextPsn
                || (!responseSinceResend && Psn.isAfter(psn, goBackNextPsn)));
        if (!continues) {
            goBackCause = causeOfGoBack(frame, nanos, psn);
            retransmissions.merge(goBackCause, 1L, Long::sum);
        }
        lastResend = new Resend(!continues, goBackCause);
        inGoBack = true;
        responseSinceResend = false;
        goBackNextPsn = Psn.next(psn);
        if (packet.opcode().kind() == OperationKind.RDMA_READ_REQUEST) {
            OutstandingMessage read = find(psn, OperationKind.RDMA_READ_REQUEST);
            if (read != null) {
                checkReadRetry(frame, psn, read, packet.header(Reth.class).orElseThrow());
                if (read.complete()) {
                    goBackNextPsn = read.endPsn;
                }
            }
        }
    }

    /**
     * The first packet of a message shows up only as a resend: its first transmission was lost
     * before the capture point. Either it begins a message the capture saw only from a MIDDLE or
     * LAST on, or the whole message was lost: then it ends where the next message the capture saw
     * begins (or at the next new PSN).
     */
    private void adoptLostStart(long nanos, int psn, RocePacket packet) {
        OperationKind kind = packet.opcode().kind();
        Reth reth = packet.header(Reth.class).orElse(null);
        long va = reth == null ? 0 : reth.virtualAddress();
        long length = reth == null ? 0 : reth.dmaLengthUnsigned();
        java.util.List<OutstandingMessage> inOrder = new java.util.ArrayList<>(outstanding);
        int at = 0;
        while (at < inOrder.size() && Psn.isBefore(inOrder.get(at).firstPsn, psn)) {
            at++;
        }
        OutstandingMessage after = at < inOrder.size() ? inOrder.get(at) : null;
        if (after != null && !after.sawStart && after.kind == kind && packet.opcode().position() == Position.FIRST) {
            after.startsAt(psn, va, length);
            return;
        }
        OutstandingMessage lost = new OutstandingMessage(kind, psn, nanos, va, length);
        lost.bytes = kind == OperationKind.SEND ? packet.payloadLength() : length;
        if (packet.opcode().position() == Position.ONLY && kind != OperationKind.RDMA_READ_REQUEST) {
            lost.endPsn = Psn.next(psn);
        } else if (kind == OperationKind.RDMA_READ_REQUEST && mtu.known()) {
            lost.endPsn = Psn.add(psn, Position.packetCount(length, mtu.bytes()));
        } else {
            lost.endPsn = after != null ? after.firstPsn : nextPsn;
        }
        inOrder.add(at, lost);
        outstanding.clear();
        outstanding.addAll(inOrder);
        messagesSent++;
    }

    /** Names what made the requester go back, from what it received since the last go-back, and forgets it. */
    private RetransmissionCause causeOfGoBack(long frame, long nanos, int psn) {
        RetransmissionCause cause;
        if (nakedPsn >= 0) {
            cause = RetransmissionCause.SEQUENCE_NAK;
            if (Psn.isBefore(psn, nakedPsn)) {
                violations.add(ViolationKind.GO_BACK_NOT_AT_NAKED_PSN, frame, requests + ": NAK (PSN sequence error) for PSN "
                        + nakedPsn + ", go-back resumed at " + psn + ", before it (those PSNs were acknowledged)");
            } else if (psn != nakedPsn) {
                resumedPastNakedPsn++; // the resent packet at the NAKed PSN was lost before the capture point
            }
        } else if (rnrAtNanos >= 0) {
            cause = RetransmissionCause.RNR;
            if (nanos - rnrAtNanos >= rnrDelayNanos) {
                rnrWaited++;
            } else {
                rnrNotWaited++;
            }
        } else if (implicitNak) {
            cause = RetransmissionCause.IMPLICIT_NAK;
        } else {
            cause = RetransmissionCause.LOCAL_ACK_TIMEOUT;
        }
        nakedPsn = -1;
        rnrAtNanos = -1;
        implicitNak = false;
        return cause;
    }

    /** rxe_req.c req_retry: a READ resumed k PSNs in asks for VA + k x PMTU, length - k x PMTU. */
    private void checkReadRetry(long frame, int psn, OutstandingMessage read, Reth reth) {
        int packetsIn = Psn.distance(read.firstPsn, psn);
        if (packetsIn > 0 && !mtu.known()) {
            return; // cannot tell how many bytes the skipped PSNs carried
        }
        long skipped = (long) packetsIn * mtu.bytes();
        long expectedVa = read.readVirtualAddress + skipped;
        long expectedLength = read.readLength - skipped;
        if (reth.virtualAddress() != expectedVa || reth.dmaLengthUnsigned() != expectedLength) {
            violations.add(ViolationKind.READ_RETRY_RETH_MISMATCH, frame, String.format(
                    "%s: READ first sent at PSN %d (VA 0x%x, length %d) resent at PSN %d with VA 0x%x, length %d;"
                            + " expected VA 0x%x, length %d", requests, read.firstPsn, read.readVirtualAddress,
                    read.readLength, psn, reth.virtualAddress(), reth.dmaLengthUnsigned(), expectedVa, expectedLength));
        }
    }

    /** IBTA 9.7.5.1.1: a request before the responder's expected PSN is a duplicate; at it, in sequence. */
    private void responderReceives(int psn, OperationKind kind) {
        if (Psn.isBefore(psn, responderExpectedPsn)) {
            duplicates.duplicateRequest(kind, psn);
        } else if (psn == responderExpectedPsn) {
            OutstandingMessage read = kind == OperationKind.RDMA_READ_REQUEST ? find(psn, kind) : null;
            responderExpectedPsn = read != null && read.complete() ? read.endPsn : Psn.next(psn);
        }
    }

    /** A response from the responder: ACK, NAK, READ response or Atomic Acknowledge. */
    void response(long frame, long nanos, RocePacket packet, boolean delivered) {
        if (!delivered) {
            responsesNotDelivered++; // the requester never saw it: it neither acknowledges nor NAKs
            return;
        }
        int psn = packet.bth().psn();
        OperationKind kind = packet.opcode().kind();
        Position position = packet.opcode().position();
        mtu.observe(position, packet.payloadLength());
        responsePackets++;
        responseSinceResend = true;
        if (openRead != null && kind == OperationKind.RDMA_READ_RESPONSE && !Psn.isBefore(psn, openRead.firstPsn)) {
            nextPsn = Psn.isAfter(Psn.next(psn), nextPsn) ? Psn.next(psn) : nextPsn;
            if (position.endsMessage()) {
                closeReadRange(Psn.next(psn));
            }
        }
        if (!Psn.isBefore(psn, nextPsn)) {
            violations.add(ViolationKind.ACK_FOR_UNSENT_PSN, frame, requests + ": " + packet.opcode()
                    + " for PSN " + psn + ", but the highest PSN sent is " + Psn.add(nextPsn, -1));
            return;
        }
        AethSyndrome syndrome = packet.header(Aeth.class).map(Aeth::syndrome).orElse(null);
        switch (syndrome) {
            case AethSyndrome.Nak nak -> {
                NakCode code = nak.code();
                naksByCode.merge(code == null ? "RESERVED_" + nak.value() : code.name(), 1L, Long::sum);
                if (code == NakCode.PSN_SEQUENCE_ERROR) {
                    nakedPsn = psn;
                }
                acknowledge(psn, false, nanos); // IBTA 9.7.5.2: a NAK acknowledges every earlier PSN
                return;
            }
            case AethSyndrome.RnrNak rnr -> {
                rnrNaks++;
                rnrAtNanos = nanos;
                rnrDelayNanos = rnr.delayNanos(); // IBTA table 45
                acknowledge(psn, false, nanos);
                return;
            }
            case AethSyndrome.Reserved reserved -> {
                naksByCode.merge("RESERVED_SYNDROME", 1L, Long::sum);
                return;
            }
            case null, default -> positiveResponse(frame, nanos, psn, kind, position, packet);
        }
    }

    private void positiveResponse(long frame, long nanos, int psn, OperationKind kind, Position position, RocePacket packet) {
        OutstandingMessage head = firstUnacknowledged();
        if (head != null && head.awaitsOwnResponse()
                && Psn.isAfter(psn, Psn.add(head.firstPsn, head.responsePackets))) {
            implicitNak = true; // rxe_comp.c check_psn: COMPST_ERROR_RETRY; the response is discarded
            return;
        }
        duplicates.response(kind, position, psn);
        if (Psn.isAfter(Psn.next(psn), responderExpectedPsn)) {
            responderExpectedPsn = Psn.next(psn); // the responder answered it, so it had received it
        }
        if (kind == OperationKind.ATOMIC_ACKNOWLEDGE) {
            long original = packet.header(AtomicAckEth.class).orElseThrow().originalData();
            Long earlier = duplicates.atomicResult(psn, original);
            if (earlier != null) {
                violations.add(ViolationKind.ATOMIC_EXECUTED_TWICE, frame, String.format(
                        "%s: Atomic Acknowledge for PSN %d carries original value 0x%x, an earlier one 0x%x",
                        requests, psn, original, earlier));
            }
        }
        if (kind == OperationKind.RDMA_READ_RESPONSE) {
            OutstandingMessage read = find(psn, OperationKind.RDMA_READ_REQUEST);
            if (read != null && psn == Psn.add(read.firstPsn, read.responsePackets)) {
                read.responsePackets++;
            }
            acknowledge(psn, position.endsMessage(), nanos); // a READ response acknowledges everything before it
            return;
        }
        acknowledge(psn, true, nanos);
    }

    private OutstandingMessage firstUnacknowledged() {
        return outstanding.peekFirst();
    }

    /** Completes the messages whose last PSN is before {@code psn} (or at it, when {@code inclusive}). */
    private void acknowledge(int psn, boolean inclusive, long nanos) {
        for (OutstandingMessage head = outstanding.peekFirst(); head != null && head.complete();
                head = outstanding.peekFirst()) {
            int last = head.lastPsn();
            if (Psn.isAfter(last, psn) || (last == psn && !inclusive)) {
                return;
            }
            outstanding.removeFirst();
            acknowledgedThrough = last;
            messagesAcknowledged++;
            latency.add(nanos - head.firstSentNanos);
            goodput.add(nanos, head.length(mtu));
        }
    }

    private OutstandingMessage find(int psn, OperationKind kind) {
        for (OutstandingMessage message : outstanding) {
            if (message.kind == kind && message.contains(psn)) {
                return message;
            }
        }
        return null;
    }

    /** {@return whether the last request was sent again, and why; null when it was new} */
    Resend lastResend() {
        return lastResend;
    }

    long outstandingMessages() {
        return outstanding.size();
    }
}
