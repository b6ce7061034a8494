package org.roce4j.emulator.transport;

import org.roce4j.emulator.RnicCounter;
import org.roce4j.emulator.node.Rnic;
import org.roce4j.emulator.verbs.EmulatedQp;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

import org.roce4j.verbs.QpState;
import org.roce4j.verbs.WcStatus;
import org.roce4j.verbs.WrOpcode;
import org.roce4j.wire.AethSyndrome;
import org.roce4j.wire.OperationKind;
import org.roce4j.wire.PacketInfo;
import org.roce4j.wire.Position;
import org.roce4j.wire.Psn;

/**
 * A QP's completer, after rxe's {@code rxe_comp.c}: processes ACKs, NAKs, RDMA READ responses and
 * atomic acknowledgements, and retires send WQEs strictly in posting order.
 *
 * <ul>
 *   <li>An ACK for PSN p acknowledges every packet up to p (IBTA 9.7.5.1: ACKs are cumulative);
 *       a READ or atomic whose response is still missing behind it means responses were lost,
 *       and the requester goes back to it (rxe COMPST_ERROR_RETRY).</li>
 *   <li>A NAK acknowledges everything before its PSN; a sequence NAK sends the requester back to
 *       that PSN, an RNR NAK does so after the responder's RNR timer (IBTA 9.7.5.2.8); error NAKs
 *       fail the WQE holding the PSN: invalid request → REM_INV_REQ_ERR, remote access →
 *       REM_ACCESS_ERR, remote operational → REM_OP_ERR (IBTA table 44, rxe {@code check_ack}).</li>
 *   <li>READ responses carry the data into the WQE's SGEs, in PSN order; the atomic ACK's
 *       original value lands in its 8-byte SGE in host byte order, as hardware writes it.</li>
 *   <li>Retiring: completions for signaled (or sq_sig_all) successes and for every error; the
 *       first error moves the QP to the error state, which flushes the rest.</li>
 *   <li>The local ACK timer (IBTA 9.7.6.1.3, C9-140): 4.096 µs × 2^timeout (0: no timer), armed when
 *       a packet goes out with none pending, restarted by every valid response while packets are
 *       outstanding, stopped when none are (and during an RNR wait). On expiry the requester goes
 *       back to the oldest unacknowledged PSN (rxe {@code retransmit_timer} → COMPST_ERROR_RETRY).</li>
 *   <li>retry_cnt (IBTA 9.7.6.1.3, C9-141): sequence NAKs, implicit NAKs and timeouts each cost one
 *       retry; with none left the WQE fails RETRY_EXC_ERR, so a PSN is sent at most retry_cnt + 1
 *       times. Unlike rnr_retry, 7 is not infinite (IBTA; the device's profile may say otherwise, as
 *       {@link org.roce4j.emulator.DeviceProfile#RXE_6_12} does: rxe treats 7 as infinite for both). One
 *       go-back is charged per loss: further triggers before progress are ignored (rxe
 *       {@code started_retry}), except a timeout. Forward progress, reported by an ACK or by a NAK
 *       (which acknowledges the PSNs before it), reloads retry_cnt and ends the go-back.</li>
 * </ul>
 */
public final class Completer {
    private static final VarHandle HOST_ORDER_LONG =
            MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.nativeOrder());

    private final EmulatedQp qp;
    private final Rnic rnic;
    private final SendQueue sq;
    private final byte[] atomicResult = new byte[8];

    /** Shared with the requester: the next PSN, the oldest unacknowledged one, the READ/atomic credits. */
    private final SendWindow window;
    private int retriesLeft;
    private int rnrRetriesLeft;
    private long rnrRetryAt = Long.MAX_VALUE;
    private int rnrPsn;
    /** When the local ACK timer expires (rxe {@code retrans_timer}); MAX_VALUE when not armed. */
    private long ackTimeoutAt = Long.MAX_VALUE;
    /** A go-back is under way and no progress was made since (rxe {@code comp.started_retry}). */
    private boolean retryStarted;
    /** Go-backs started so far: a response that made progress and then went back keeps its go-back. */
    private long goBacks;

    public Completer(EmulatedQp qp, SendWindow window) {
        this.qp = qp;
        this.window = window;
        this.rnic = qp.rnic;
        this.sq = qp.sq;
    }

    public void reset() {
        clearTimers();
        resetRetryCounters();
    }

    public void resetRetryCounters() {
        retriesLeft = qp.retryCnt;
        rnrRetriesLeft = qp.rnrRetry;
    }

    public void clearTimers() {
        rnrRetryAt = Long.MAX_VALUE;
        ackTimeoutAt = Long.MAX_VALUE;
        retryStarted = false;
    }

    /** IBTA 9.7.6.1.3: the local ACK timeout is 4.096 µs × 2^timeout; timeout 0 disables the timer. */
    static long ackTimeoutNanos(int timeout) {
        return timeout == 0 ? Long.MAX_VALUE : 4096L << timeout;
    }

    /** The requester sent an RC packet that expects a response: start the ACK timer unless it runs. */
    void armAckTimer(long nowNanos) {
        if (ackTimeoutAt == Long.MAX_VALUE && qp.timeout != 0) {
            ackTimeoutAt = nowNanos + ackTimeoutNanos(qp.timeout);
            rnic.timerChanged(qp);
        }
    }

    private boolean isSending() {
        return qp.state == QpState.RTS || qp.state == QpState.SQD;
    }

    /** rxe COMPST_EXIT: restart the ACK timer while packets are outstanding, stop it otherwise. */
    private void restartAckTimer(long nowNanos) {
        long at = isSending() && window.hasOutstandingPackets() && !isWaitingForRnrRetry() && qp.timeout != 0
                ? nowNanos + ackTimeoutNanos(qp.timeout) : Long.MAX_VALUE;
        if (at != ackTimeoutAt) {
            ackTimeoutAt = at;
            rnic.timerChanged(qp);
        }
    }

    boolean isWaitingForRnrRetry() {
        return rnrRetryAt != Long.MAX_VALUE;
    }

    public long deadlineNanos() {
        return Math.min(rnrRetryAt, ackTimeoutAt);
    }

    /**
     * A timer ran out. RNR: resend from the PSN the responder refused. Local ACK timeout: resend
     * from the oldest unacknowledged PSN, charged to retry_cnt (IBTA 9.7.6.1.3).
     */
    public void onTimer(long nowNanos) {
        if (rnrRetryAt != Long.MAX_VALUE && nowNanos >= rnrRetryAt) {
            rnrRetryAt = Long.MAX_VALUE;
            qp.requester.rewindTo(rnrPsn);
        }
        if (ackTimeoutAt != Long.MAX_VALUE && nowNanos >= ackTimeoutAt) {
            ackTimeoutAt = Long.MAX_VALUE;
            if (isSending() && window.hasOutstandingPackets() && !isWaitingForRnrRetry()) {
                rnic.count(RnicCounter.LOCAL_ACK_TIMEOUTS);
                retryStarted = false; // a timeout always retries (rxe timeout_retry)
                retry(window.unackedPsn);
                retire();
                // Rearm while packets are outstanding: should a go-back find nothing to resend, the
                // QP still ends (RETRY_EXC_ERR) instead of waiting forever with no timer.
                restartAckTimer(nowNanos);
            }
        }
        rnic.timerChanged(qp);
    }

    public void onResponse(PacketInfo packet, long nowNanos) {
        int psn = packet.psn();
        // Only PSNs sent and not yet acknowledged can be answered; anything else is stale (rxe check_psn).
        if (!window.isOutstanding(psn)) {
            rnic.count(RnicCounter.DROPPED_STALE_RESPONSE);
            return;
        }
        rnic.count(RnicCounter.RESPONSES_TO_COMPLETER);
        int before = window.unackedPsn;
        long goBacksBefore = goBacks;
        OperationKind kind = packet.opcode().kind();
        switch (kind) {
            case ACKNOWLEDGE -> onAcknowledge(packet, psn, nowNanos);
            case RDMA_READ_RESPONSE -> onReadResponse(packet, psn);
            case ATOMIC_ACKNOWLEDGE -> onAtomicAcknowledge(packet, psn);
            default -> rnic.count(RnicCounter.DROPPED_STALE_RESPONSE);
        }
        if (window.unackedPsn != before && goBacks == goBacksBefore) {
            retryStarted = false; // progress: the next loss may start a new go-back (not this response's own)
        }
        retire();
        restartAckTimer(nowNanos);
        rnic.schedule(qp);
    }

    private void onAcknowledge(PacketInfo packet, int psn, long nowNanos) {
        int syndrome = packet.aethSyndrome();
        if (AethSyndrome.isAck(syndrome)) { // the common case, decoded without a record
            if (acknowledgeThrough(psn)) {
                resetRetryCounters();
            }
            return;
        }
        switch (AethSyndrome.decode(syndrome)) {
            case AethSyndrome.Ack ack -> {
                if (acknowledgeThrough(psn)) {
                    resetRetryCounters();
                }
            }
            case AethSyndrome.RnrNak rnr -> {
                rnic.count(RnicCounter.RNR_NAKS_RECEIVED);
                if (!acknowledgeThrough(Psn.add(psn, -1))) {
                    return;
                }
                if (rnrRetriesLeft == 0) {
                    rnic.count(RnicCounter.RNR_RETRY_EXCEEDED);
                    failAt(psn, WcStatus.RNR_RETRY_EXC_ERR);
                    return;
                }
                if (qp.rnrRetry != 7) { // IBTA 9.7.5.2.8: 7 means retry forever
                    rnrRetriesLeft--;
                }
                rnrPsn = psn;
                rnrRetryAt = nowNanos + AethSyndrome.RnrNak.delayNanosOf(rnr.timerCode());
                rnic.timerChanged(qp);
            }
            case AethSyndrome.Nak nak -> {
                rnic.count(RnicCounter.NAKS_RECEIVED);
                if (!acknowledgeThrough(Psn.add(psn, -1))) {
                    return;
                }
                switch (nak.value()) {
                    case 0 -> {
                        rnic.count(RnicCounter.SEQUENCE_NAKS_RECEIVED);
                        // PSN sequence error: go back and resend from there; during an RNR wait the
                        // packets after the refused one are out of sequence anyway, and the RNR
                        // retry resends them.
                        if (!isWaitingForRnrRetry()) {
                            retry(psn);
                        }
                    }
                    case 1 -> failAt(psn, WcStatus.REM_INV_REQ_ERR);
                    case 2 -> failAt(psn, WcStatus.REM_ACCESS_ERR);
                    default -> failAt(psn, WcStatus.REM_OP_ERR);
                }
            }
            case AethSyndrome.Reserved reserved -> rnic.count(RnicCounter.DROPPED_STALE_RESPONSE);
        }
    }

    /**
     * Everything up to and including {@code psn} arrived. WQEs wholly covered are done, except READs
     * and atomics, which need their response: if one is covered without it, its responses were lost
     * and the requester goes back (returns false).
     */
    private boolean acknowledgeThrough(int psn) {
        if (Psn.compare(psn, window.unackedPsn) < 0) {
            return true;
        }
        for (long seq = sq.retired; seq != sq.posted; seq++) {
            SendWqe wqe = sq.at(seq);
            if (wqe.state == WqeState.DONE || wqe.state == WqeState.ERROR) {
                continue;
            }
            if (!wqe.started || Psn.compare(wqe.lastPsn, psn) > 0) {
                break;
            }
            if (wqe.takesReadAtomicCredit()) {
                // Everything before the READ/atomic is acknowledged (IBTA 9.7.5.1.5): move the expected
                // PSN onto it, so that it never rests on a WQE already done (a later go-back from it
                // would find nothing to resend). That is progress, so this loss starts a go-back of its
                // own even if one was under way (rxe check_psn → COMPST_ERROR_RETRY).
                if (Psn.compare(wqe.firstPsn, window.unackedPsn) > 0) {
                    progressTo(wqe.firstPsn);
                }
                retry(window.unackedPsn);
                return false;
            }
            wqe.state = WqeState.DONE;
        }
        progressTo(Psn.next(psn));
        return true;
    }

    /**
     * Forward progress, whatever response reported it (an ACK, or a sequence or RNR NAK, which
     * acknowledges every PSN before its own — IBTA 9.7.5.1.2): retry_cnt is reloaded and a go-back
     * under way is over, so a loss reported by the same response starts a go-back at once (rxe
     * check_psn: a WQE completed by any response → reset_retry_counters, which clears
     * started_retry). Without it, when reordering lets a NAK overtake the ACKs before it, the ACKs
     * arrive stale, every go-back is charged and none reloads, and a transfer that is moving ends
     * in RETRY_EXC_ERR; and a NAK for a new loss during a go-back waited for the ACK timeout.
     */
    private void progressTo(int psn) {
        if (Psn.compare(psn, window.unackedPsn) > 0) {
            window.unackedPsn = psn;
            retriesLeft = qp.retryCnt;
            retryStarted = false;
        }
    }

    private void onReadResponse(PacketInfo packet, int psn) {
        SendWqe wqe = outstandingHolding(psn);
        // rxe_comp.c check_ack: READ RESPONSE ONLY also completes an ATOMIC WRITE and a FLUSH (IB_WR_FLUSH goes to
        // COMPST_READ with nothing to copy).
        boolean emptyAnswer = wqe != null && (wqe.opcode == WrOpcode.ATOMIC_WRITE || wqe.opcode == WrOpcode.FLUSH);
        if (wqe == null || (wqe.opcode != WrOpcode.RDMA_READ && !emptyAnswer)
                || !acknowledgeThrough(Psn.add(wqe.firstPsn, -1))) {
            rnic.count(RnicCounter.DROPPED_STALE_RESPONSE);
            return;
        }
        if (psn != window.unackedPsn) {
            // A response is missing before this one (IBTA 9.7.5.1.5): ask again from the gap.
            retry(window.unackedPsn);
            return;
        }
        int index = Psn.distance(wqe.firstPsn, psn);
        int mtu = qp.mtu();
        long offset = (long) index * mtu;
        // rxe_resp.c acknowledge: an ATOMIC WRITE or a FLUSH is answered by an RDMA READ Response Only with no
        // payload (send_read_response_ack); rxe_comp.c check_ack completes it on that response.
        long expectedLength = emptyAnswer ? 0 : Math.min(mtu, wqe.length - offset);
        Position position = packet.opcode().position();
        if (position != Position.of(index, wqe.packets) || packet.payloadLength() != expectedLength) {
            fail(wqe, WcStatus.BAD_RESP_ERR); // rxe check_ack: a response that does not fit the request
            return;
        }
        if (expectedLength > 0) {
            int result = SgeCopy.scatter(rnic.memoryRegions, qp.pd, wqe.sges,
                    wqe.numSge, offset, packet.buffer(), packet.payloadOffset(), (int) expectedLength);
            if (result != SgeCopy.OK) {
                countMemoryFault(result);
                fail(wqe, result == SgeCopy.TOO_LONG ? WcStatus.LOC_LEN_ERR : WcStatus.LOC_PROT_ERR);
                return;
            }
        }
        progressTo(Psn.next(psn)); // every READ response in sequence is progress (rxe check_ack)
        if (psn == wqe.lastPsn) {
            finishReadOrAtomic(wqe);
        }
    }

    private void onAtomicAcknowledge(PacketInfo packet, int psn) {
        SendWqe wqe = outstandingHolding(psn);
        if (wqe == null || !wqe.opcode.isAtomic() || !acknowledgeThrough(Psn.add(psn, -1))) {
            rnic.count(RnicCounter.DROPPED_STALE_RESPONSE);
            return;
        }
        if ((packet.aethSyndrome() & 0x60) != 0) {
            fail(wqe, WcStatus.BAD_RESP_ERR);
            return;
        }
        // The original value travels big-endian; it lands in host memory as the 64-bit number it is.
        long original = packet.atomicOriginalData();
        HOST_ORDER_LONG.set(atomicResult, 0, original);
        int result = SgeCopy.scatter(rnic.memoryRegions, qp.pd, wqe.sges,
                wqe.numSge, 0, atomicResult, 0, 8);
        if (result != SgeCopy.OK) {
            countMemoryFault(result);
            fail(wqe, WcStatus.LOC_PROT_ERR);
            return;
        }
        window.unackedPsn = Psn.next(psn);
        finishReadOrAtomic(wqe);
    }

    /**
     * rxe_comp.c do_read / do_atomic: a READ response or atomic result that cannot be copied into the
     * WQE's memory fails it with LOC_PROT_ERR, whether the lkey was bad or the memory unreachable.
     */
    private void countMemoryFault(int result) {
        if (result == SgeCopy.FAULT) {
            rnic.count(RnicCounter.MEMORY_ACCESS_ERRORS);
        }
    }

    private void finishReadOrAtomic(SendWqe wqe) {
        wqe.state = WqeState.DONE;
        if (wqe.takesReadAtomicCredit()) { // a FLUSH took none (rxe_req.c: only READ, atomics, ATOMIC WRITE)
            window.readAtomicInFlight--;
        }
        resetRetryCounters();
    }

    /** The started, unfinished WQE whose PSN range holds {@code psn}, or null. */
    private SendWqe outstandingHolding(int psn) {
        for (long seq = sq.retired; seq != sq.posted; seq++) {
            SendWqe wqe = sq.at(seq);
            if (!wqe.started) {
                return null;
            }
            if (wqe.state == WqeState.PENDING && Psn.compare(psn, wqe.firstPsn) >= 0
                    && Psn.compare(psn, wqe.lastPsn) <= 0) {
                return wqe;
            }
        }
        return null;
    }

    /**
     * Go back and resend from {@code psn}, counting against retry_cnt; past it, RETRY_EXC_ERR
     * (IBTA 9.7.6.1.3, C9-141). Once a go-back is under way, further losses reported before any
     * progress are the same loss seen again (each later READ response behind a gap, say) and cost
     * nothing (rxe {@code started_retry}).
     */
    private void retry(int psn) {
        if (retryStarted) {
            return;
        }
        if (retriesLeft == 0) {
            rnic.count(RnicCounter.RETRY_EXCEEDED);
            failAt(psn, WcStatus.RETRY_EXC_ERR);
            return;
        }
        if (!rnic.model.retriesForever(qp.retryCnt)) { // IBTA 9.7.6.1.3; the rxe profiles: 7 is forever
            retriesLeft--;
        }
        retryStarted = true;
        goBacks++;
        rnic.count(RnicCounter.COMPLETER_RETRIES);
        qp.requester.rewindTo(psn);
    }

    /** An error NAK: the WQE holding the PSN fails (or the oldest outstanding one, if none holds it). */
    private void failAt(int psn, WcStatus status) {
        SendWqe wqe = outstandingHolding(psn);
        if (wqe == null) {
            for (long seq = sq.retired; seq != sq.posted && wqe == null; seq++) {
                SendWqe candidate = sq.at(seq);
                if (candidate.started && candidate.state == WqeState.PENDING) {
                    wqe = candidate;
                }
            }
        }
        if (wqe != null) {
            fail(wqe, status);
        }
    }

    private void fail(SendWqe wqe, WcStatus status) {
        wqe.state = WqeState.ERROR;
        wqe.status = status;
    }

    /**
     * Completes finished WQEs in posting order (IBTA 10.8.6: completions are returned in order).
     * The first failed one completes with its status and moves the QP to error, flushing the rest.
     */
    void retire() {
        while (sq.retired != sq.posted) {
            SendWqe wqe = sq.at(sq.retired);
            if (wqe.state == WqeState.DONE) {
                sq.retired++;
                if (wqe.opcode.isSend()) {
                    rnic.count(RnicCounter.SENDS_COMPLETED); // rxe do_complete: RXE_CNT_RDMA_SEND
                }
                qp.completeSend(wqe, WcStatus.SUCCESS);
            } else if (wqe.state == WqeState.ERROR) {
                sq.retired++;
                qp.completeSend(wqe, wqe.status);
                qp.enterError(); // releases what it flushed, this WQE with it
                return;
            } else {
                break;
            }
        }
        sq.release(); // the unsignaled WQEs retired above, whose slots no completion has handed back
        qp.requester.checkDrained();
    }
}
