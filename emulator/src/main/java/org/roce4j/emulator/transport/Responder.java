package org.roce4j.emulator.transport;

import org.roce4j.emulator.fabric.PayloadReference;
import java.lang.invoke.VarHandle;

import org.roce4j.emulator.Quirk;
import org.roce4j.emulator.RnicCounter;
import org.roce4j.emulator.verbs.DeviceLimits;
import org.roce4j.emulator.verbs.MemoryRegionTable;
import org.roce4j.emulator.node.Rnic;
import org.roce4j.emulator.verbs.EmulatedQp;
import org.roce4j.emulator.verbs.MemoryRegion;
import org.roce4j.verbs.AccessFlag;
import org.roce4j.verbs.AsyncEventType;
import org.roce4j.verbs.FlushLevel;
import org.roce4j.verbs.FlushType;
import org.roce4j.verbs.QpType;
import org.roce4j.verbs.WcFlag;
import org.roce4j.verbs.WcOpcode;
import org.roce4j.verbs.WcStatus;
import org.roce4j.wire.AethSyndrome;
import org.roce4j.wire.HeaderType;
import org.roce4j.wire.NakCode;
import org.roce4j.wire.Opcode;
import org.roce4j.wire.OperationKind;
import org.roce4j.wire.PacketInfo;
import org.roce4j.wire.Position;
import org.roce4j.wire.Psn;

/**
 * A QP's responder, after rxe's {@code rxe_resp.c}: each request runs through named states with the
 * checks in rxe's order — PSN, op sequence, op valid for the QP, resources (receive WQE, read/atomic
 * resources), length, rkey — then executes, completes the receive WQE and acknowledges. Each
 * failure is one state with one NAK code and one completion status:
 *
 * <table>
 *   <caption>Responder errors (RC)</caption>
 *   <tr><th>state</th><th>NAK</th><th>receive WQE, if any</th></tr>
 *   <tr><td>PSN ahead (once per sequence error)</td><td>PSN sequence error</td><td>—</td></tr>
 *   <tr><td>op sequence, op not allowed, too many READ/atomics, misaligned atomic, bad length,
 *       failed invalidate</td><td>invalid request</td><td>REM_INV_REQ_ERR</td></tr>
 *   <tr><td>no receive WQE</td><td>RNR, the QP's min_rnr_timer</td><td>—</td></tr>
 *   <tr><td>rkey, PD, access or bounds</td><td>remote access error (nothing written)</td><td>REM_ACCESS_ERR</td></tr>
 *   <tr><td>receive buffer too small</td><td>invalid request</td><td>LOC_LEN_ERR</td></tr>
 *   <tr><td>receive SGE with a bad lkey</td><td>remote operational error</td><td>LOC_PROT_ERR</td></tr>
 *   <tr><td>registered memory that cannot be touched (any QP type; QP_FATAL)</td><td>remote operational
 *       error</td><td>LOC_QP_OP_ERR</td></tr>
 * </table>
 * After an invalid request or access error the responder's QP goes to the error state and raises
 * QP_REQ_ERR or QP_ACCESS_ERR (IBTA 11.6.3.1). UC and UD never answer: a bad message is dropped and
 * counted (a receive WQE already taken is kept for the next message, as rxe's class D1); so is a UD
 * datagram longer than its receive WQE, the QP staying in RTS. Receive buffers are checked against the
 * PD of the queue the WQE came from: the SRQ's when the QP has one.
 */
public final class Responder {
    /** rxe_resp.c {@code enum resp_states}: where a request is in its checks, execution and answer. */
    enum RespState {
        CHECK_PSN, CHECK_OP_SEQ, CHECK_OP_VALID, CHECK_RESOURCE, CHECK_LENGTH, CHECK_RKEY, EXECUTE,
        READ_REPLY, ATOMIC_REPLY, ATOMIC_WRITE_REPLY, PROCESS_FLUSH, COMPLETE, ACKNOWLEDGE, CLEANUP, DUPLICATE_REQUEST,
        ERR_PSN_OUT_OF_SEQ, ERR_MISSING_OPCODE_FIRST, ERR_MISSING_OPCODE_LAST, ERR_UNSUPPORTED_OPCODE,
        ERR_TOO_MANY_RD_ATOMIC, ERR_MISALIGNED_ATOMIC, ERR_LENGTH, ERR_RNR, ERR_RKEY_VIOLATION,
        ERR_INVALIDATE_RKEY, ERR_RECEIVE_TOO_SMALL, ERR_RECEIVE_PROTECTION, ERR_MEMORY_FAULT, ERR_DROP_MESSAGE, DONE
    }

    /**
     * An RC request is answered only when its PSN lies in [expected - W, expected + W), or inside the
     * PSNs of a saved READ/atomic (whose duplicates are replayed); anything else is dropped and
     * counted ({@link RnicCounter#DROPPED_PSN_OUT_OF_WINDOW}) without a NAK or re-ACK. IBTA 9.7.5.1
     * answers the whole 2^24 space (half ahead, half duplicate); an honest requester is never that
     * far off — rxe's and ours keep 128 PSNs unacknowledged (RXE_MAX_UNACKED_PSNS). One that lost
     * more than W packets in a row recovers by its ACK timeout; a go-back-N resend that starts more
     * than W behind reaches the window before its end, and that re-ACK covers it all. A forged packet
     * must now hit 2W of 2^24 PSNs to draw an answer. Nothing is executed outside the expected PSN.
     */
    public static final int RC_PSN_WINDOW = 1 << 16;

    private final EmulatedQp qp;
    private final Rnic rnic;
    /** What every request's ACK is built from: before the rest, to be laid out next to the responder. */
    private final ResponsePackets out;
    final ReceiveCursor cursor;
    /** The READ responses owed, sent as the link has room. */
    public final ReadReplies reads;
    private final DuplicateRequests duplicates;

    /** The PSN expected next (rxe {@code resp.psn}). */
    public int expectedPsn;
    /** Messages completed (IBTA 9.7.5.1.3, the MSN every AETH carries). */
    int msn;
    private boolean sentPsnNak;
    /** The kind of the multi-packet message in progress (SEND or RDMA_WRITE), null between messages (rxe {@code resp.opcode}). */
    private OperationKind message;
    private boolean dropMessage;
    private MemoryRegion target;
    private long targetVa;
    private long targetResid;
    private long targetLength;
    private final ReadAtomicResources resources = new ReadAtomicResources();
    /**
     * The RNIC's frame (its {@link RnicCounter#FRAMES_RECEIVED} then) whose WRITE payload this responder last placed
     * by reference, and the QP's {@link EmulatedQp#changes} then: what a train's next packet continues
     * ({@link #placeNextOfTrain}); -1 before the first.
     */
    private long placedAtFrame = -1;
    private int placedAtChange;

    // What the packet being processed led to.
    private int nakSyndrome;
    private WcStatus wqeStatus;
    private boolean goToError;
    private AsyncEventType errorEvent;
    private final long[] atomicOriginal = new long[1];

    public Responder(EmulatedQp qp, int maxSge) {
        this.qp = qp;
        this.rnic = qp.rnic;
        this.cursor = new ReceiveCursor(maxSge);
        this.out = new ResponsePackets(qp);
        this.reads = new ReadReplies(qp, this, out);
        this.duplicates = new DuplicateRequests(qp, this, out, reads, resources);
    }

    /** Sends the coalesced ACK owed, if any; the duty cycle calls this. */
    public int flushPendingAck() {
        return out.flushPendingAck(msn);
    }

    public void startAt(int psn) {
        expectedPsn = psn;
    }

    public void resizeResources(int count) {
        resources.resize(count);
    }

    public void reset() {
        cursor.active = false;
        message = null;
        dropMessage = false;
        sentPsnNak = false;
        target = null;
        out.forget();
        reads.stop();
        msn = 0;
        resources.clear();
    }

    /** The QP entered the error state: the WQE being filled is flushed (IBTA 10.3.1). */
    public void flushCurrent() {
        out.forget();
        reads.stop();
        if (cursor.active) {
            cursor.active = false;
            qp.completeReceive(cursor.wrId, WcStatus.WR_FLUSH_ERR, WcOpcode.RECV, 0, 0, 0, 0, 0, false);
        }
    }

    /**
     * A train's next packet, handed over by an RNIC that nothing else reached since the packet before it
     * ({@link Rnic#onNextPacketOfTrain}): an RDMA WRITE MIDDLE packet with that packet's headers and length but for
     * its PSN (the next) and AckReq, its payload the next bytes of the same source. If that packet was the last
     * frame the RNIC received and this responder placed it, it passed every check of the full path (rxe_resp.c
     * check_psn, check_op_seq, check_op_valid, check_resource, check_length, check_rkey), and they pass again for
     * this one unless what they read changed since: the QP ({@link EmulatedQp#changes}), what is left of the
     * message (a MIDDLE packet must not reach its end), the region (deregistered or invalidated in between:
     * {@link MemoryRegion#store} refuses). Only that is looked at, and the packet is placed as {@link #onRequest}
     * places it. Anything else — and a packet that asks for an ACK — is left to onRequest, which decides it in full.
     *
     * @return whether the packet was placed
     */
    public boolean placeNextOfTrain(PacketInfo p, PayloadReference payload) {
        int length = p.payloadLength();
        if (placedAtFrame != rnic.counter(RnicCounter.FRAMES_RECEIVED) - 1 || qp.changes != placedAtChange
                || p.ackReq() || targetResid <= length
                || !target.store(targetVa, payload.source().segment(), payload.sourceOffset(), length)) {
            return false;
        }
        rnic.count(RnicCounter.PACKETS_RECEIVED);
        placedAtFrame++;
        targetVa += length;
        targetResid -= length;
        expectedPsn = Psn.next(expectedPsn);
        return true;
    }

    public void onRequest(PacketInfo p, long nowNanos) {
        // The QP's bit first: with no READ responses owed the reply state is not touched (one cache miss at scale).
        if ((qp.responderOwes & EmulatedQp.OWES_READ_RESPONSES) != 0 && !reads.admits(p)) {
            return; // responses of a long READ are still owed: rxe would hold this request behind them
        }
        nakSyndrome = -1;
        wqeStatus = WcStatus.SUCCESS;
        goToError = false;
        errorEvent = null;
        RespState state = RespState.CHECK_PSN;
        while (state != RespState.DONE) {
            state = switch (state) {
                case CHECK_PSN -> checkPsn(p);
                case CHECK_OP_SEQ -> checkOpSequence(p);
                case CHECK_OP_VALID -> checkOpValid(p);
                case CHECK_RESOURCE -> checkResource(p);
                case CHECK_LENGTH -> checkLength(p);
                case CHECK_RKEY -> checkRkey(p);
                case EXECUTE -> execute(p);
                case READ_REPLY -> readReply(p);
                case ATOMIC_REPLY -> atomicReply(p);
                case ATOMIC_WRITE_REPLY -> atomicWriteReply(p);
                case PROCESS_FLUSH -> processFlush(p);
                case COMPLETE -> complete(p);
                case ACKNOWLEDGE -> acknowledge(p);
                case CLEANUP -> cleanup();
                case DUPLICATE_REQUEST -> {
                    duplicates.answer(p);
                    yield RespState.CLEANUP;
                }
                case ERR_PSN_OUT_OF_SEQ -> {
                    out.sendAcknowledge(msn, AethSyndrome.nak(NakCode.PSN_SEQUENCE_ERROR), expectedPsn);
                    yield RespState.CLEANUP;
                }
                case ERR_MISSING_OPCODE_FIRST, ERR_MISSING_OPCODE_LAST, ERR_UNSUPPORTED_OPCODE,
                     ERR_TOO_MANY_RD_ATOMIC, ERR_MISALIGNED_ATOMIC, ERR_LENGTH, ERR_INVALIDATE_RKEY ->
                        qp.type == QpType.RC
                                ? classC(NakCode.INVALID_REQUEST, WcStatus.REM_INV_REQ_ERR, AsyncEventType.QP_REQ_ERR)
                                : RespState.ERR_DROP_MESSAGE;
                case ERR_RNR -> receiverNotReady(p);
                case ERR_RKEY_VIOLATION -> qp.type == QpType.RC
                        ? classC(NakCode.REMOTE_ACCESS_ERROR, WcStatus.REM_ACCESS_ERR, AsyncEventType.QP_ACCESS_ERR)
                        : RespState.ERR_DROP_MESSAGE;
                case ERR_RECEIVE_TOO_SMALL -> qp.type == QpType.UD
                        ? datagramTooLong()
                        : receiveBufferError(NakCode.INVALID_REQUEST, WcStatus.LOC_LEN_ERR);
                case ERR_RECEIVE_PROTECTION -> receiveBufferError(NakCode.REMOTE_OPERATIONAL_ERROR, WcStatus.LOC_PROT_ERR);
                case ERR_MEMORY_FAULT -> memoryFault();
                case ERR_DROP_MESSAGE -> dropMessage();
                case DONE -> RespState.DONE;
            };
        }
    }

    // ---- checks, in rxe's order ------------------------------------------------------------

    private RespState checkPsn(PacketInfo p) {
        int psn = p.psn();
        switch (qp.type) {
            case RC -> {
                int diff = Psn.compare(psn, expectedPsn);
                if (diff >= RC_PSN_WINDOW || diff < -RC_PSN_WINDOW && !resources.contains(psn)) {
                    rnic.count(RnicCounter.DROPPED_PSN_OUT_OF_WINDOW);
                    return RespState.CLEANUP;
                }
                if (diff > 0) {
                    // IBTA 9.7.5.1.2, rxe_resp.c: check_psn (sent_psn_nak): NAK a sequence error once, then drop
                    // until the retry arrives.
                    if (sentPsnNak) {
                        return RespState.CLEANUP;
                    }
                    sentPsnNak = true;
                    rnic.count(RnicCounter.OUT_OF_SEQUENCE_REQUESTS);
                    return RespState.ERR_PSN_OUT_OF_SEQ;
                }
                if (diff < 0) {
                    rnic.count(RnicCounter.DUPLICATE_REQUESTS);
                    return RespState.DUPLICATE_REQUEST;
                }
                sentPsnNak = false;
            }
            case UC -> {
                if (dropMessage || psn != expectedPsn) {
                    // rxe check_psn (UC): after a gap only a FIRST/ONLY starts a message again. IBTA 9.8.3:
                    // at the expected PSN or later — a start behind it is old or forged, and is dropped
                    // without disturbing the message in progress.
                    boolean starts = p.opcode().position().startsMessage();
                    if (starts && Psn.compare(psn, expectedPsn) < 0) {
                        rnic.count(RnicCounter.DROPPED_PSN_OUT_OF_WINDOW);
                        return RespState.CLEANUP;
                    }
                    abandonMessage();
                    if (starts) {
                        dropMessage = false;
                        return RespState.CHECK_OP_SEQ;
                    }
                    return RespState.ERR_DROP_MESSAGE;
                }
            }
            case UD -> {
            }
        }
        return RespState.CHECK_OP_SEQ;
    }

    private RespState checkOpSequence(PacketInfo p) {
        Opcode opcode = p.opcode();
        boolean starts = opcode.position().startsMessage();
        // rxe_resp.c check_op_seq: a message in progress goes on with its own kind, else one starts.
        boolean ok = message == null ? starts : opcode.kind() == message && !starts;
        if (ok) {
            return RespState.CHECK_OP_VALID;
        }
        if (qp.type == QpType.UC) {
            abandonMessage();
            return starts ? RespState.CHECK_OP_VALID : RespState.ERR_DROP_MESSAGE;
        }
        return message == null ? RespState.ERR_MISSING_OPCODE_FIRST : RespState.ERR_MISSING_OPCODE_LAST;
    }

    private RespState checkOpValid(PacketInfo p) {
        OperationKind kind = p.opcode().kind();
        int needed = switch (kind) {
            case RDMA_READ_REQUEST -> AccessFlag.REMOTE_READ.bit();
            // rxe_resp.c check_op_valid: ATOMIC WRITE needs REMOTE_WRITE on the QP (RXE_ATOMIC_WRITE_MASK).
            case RDMA_WRITE, ATOMIC_WRITE -> AccessFlag.REMOTE_WRITE.bit();
            case ATOMIC -> AccessFlag.REMOTE_ATOMIC.bit();
            // rxe_resp.c check_qp_attr_access: a FLUSH needs the QP's FLUSH right of each placement type it asks
            // (measured on rxe0 of 6.12 by interop/flush: NAK invalid request without it), then the region's.
            case FLUSH -> flushAccess(p.fethPlacementType());
            case SEND -> 0;
            default -> -1;
        };
        if (needed == 0) {
            return RespState.CHECK_RESOURCE;
        }
        if (needed > 0 && (qp.accessFlags & needed) == needed) {
            return RespState.CHECK_RESOURCE;
        }
        return qp.type == QpType.RC ? RespState.ERR_UNSUPPORTED_OPCODE : RespState.ERR_DROP_MESSAGE;
    }

    private RespState checkResource(PacketInfo p) {
        Opcode opcode = p.opcode();
        OperationKind kind = opcode.kind();
        if (kind == OperationKind.RDMA_READ_REQUEST || kind == OperationKind.ATOMIC
                || kind == OperationKind.ATOMIC_WRITE) {
            return qp.maxDestRdAtomic > 0 ? RespState.CHECK_LENGTH : RespState.ERR_TOO_MANY_RD_ATOMIC;
        }
        if (opcode.takesReceiveWqe() && !cursor.active) {
            boolean taken = qp.srq != null ? qp.srq.take(cursor) : qp.rq.take(cursor);
            if (!taken) {
                return RespState.ERR_RNR;
            }
        }
        return RespState.CHECK_LENGTH;
    }

    /** rxe {@code check_length}: every packet but the last carries exactly the MTU. */
    private RespState checkLength(PacketInfo p) {
        Opcode opcode = p.opcode();
        int payload = p.payloadLength();
        int mtu = qp.mtu();
        if (opcode.kind() == OperationKind.SEND || opcode.kind() == OperationKind.RDMA_WRITE) {
            boolean bad = switch (opcode.position()) {
                case ONLY -> payload > mtu;
                case FIRST, MIDDLE -> payload != mtu;
                case LAST -> payload == 0 || payload > mtu;
            };
            if (bad) {
                return RespState.ERR_LENGTH;
            }
        }
        if (opcode.has(HeaderType.RETH) && Integer.toUnsignedLong(p.rethDmaLength()) > DeviceLimits.MAX_MESSAGE_LENGTH) {
            return RespState.ERR_LENGTH;
        }
        return RespState.CHECK_RKEY;
    }

    /**
     * The address a request's VA names under {@code rkey}: itself, or through a zero-based window an offset from
     * the window's start (rxe_resp.c check_rkey: {@code qp->resp.offset = mw->addr}, added to the VA for the range
     * check and every copy). The bounds are then checked on the result, as for any window.
     */
    private long addressOf(long va, int rkey) {
        return va + rnic.memoryRegions.zeroBasedOffset(rkey);
    }

    /** rxe {@code check_rkey}: key, PD, access and bounds of the whole access, before anything is written. */
    private RespState checkRkey(PacketInfo p) {
        Opcode opcode = p.opcode();
        OperationKind kind = opcode.kind();
        int access;
        int rkey;
        boolean first = opcode.position().startsMessage();
        switch (kind) {
            case RDMA_WRITE, RDMA_READ_REQUEST -> {
                access = kind == OperationKind.RDMA_WRITE ? AccessFlag.REMOTE_WRITE.bit() : AccessFlag.REMOTE_READ.bit();
                if (first) {
                    targetVa = addressOf(p.rethVirtualAddress(), p.rethRkey());
                    targetLength = Integer.toUnsignedLong(p.rethDmaLength());
                    targetResid = targetLength;
                    target = null;
                    if (targetLength == 0) {
                        // IBTA 9.4.1.1 / rxe: a zero-length access needs no valid address or key.
                        return p.payloadLength() == 0 ? RespState.EXECUTE : RespState.ERR_LENGTH;
                    }
                }
                rkey = first ? p.rethRkey() : 0;
            }
            case ATOMIC_WRITE -> {
                // rxe_resp.c check_rkey: REMOTE_WRITE on the region, the RETH's whole length in bounds; no
                // zero-length exemption (that is for READ and WRITE only).
                access = AccessFlag.REMOTE_WRITE.bit();
                targetVa = addressOf(p.rethVirtualAddress(), p.rethRkey());
                targetLength = Integer.toUnsignedLong(p.rethDmaLength());
                targetResid = targetLength;
                rkey = p.rethRkey();
                first = true;
            }
            case FLUSH -> {
                // rxe_resp.c check_rkey: the region needs the FLUSH right of each placement type asked (none for
                // type 0); level MR skips the range check (address and length are ignored), any other level is
                // checked like a READ's range, with no zero-length exemption.
                access = flushAccess(p.fethPlacementType());
                rkey = p.rethRkey();
                targetLength = Integer.toUnsignedLong(p.rethDmaLength());
                targetVa = addressOf(p.rethVirtualAddress(), rkey);
                MemoryRegion region = rnic.memoryRegions.remoteRegion(rkey);
                if (p.fethSelectivityLevel() == FlushLevel.MR.value() && region != null) {
                    targetVa = region.address();
                    targetLength = 0;
                }
                targetResid = targetLength;
                first = true;
            }
            case ATOMIC -> {
                access = AccessFlag.REMOTE_ATOMIC.bit();
                targetVa = addressOf(p.atomicVirtualAddress(), p.atomicRkey());
                targetLength = 8;
                targetResid = 8;
                rkey = p.atomicRkey();
                first = true;
            }
            default -> {
                return RespState.EXECUTE;
            }
        }
        if (first) {
            if (rnic.memoryRegions.checkRemote(rkey, qp.pd, qp, access, targetVa, targetResid)
                    != MemoryRegionTable.Check.OK) {
                return RespState.ERR_RKEY_VIOLATION;
            }
            target = rnic.memoryRegions.remoteRegion(rkey);
        } else if (target == null || target.state != MemoryRegion.State.VALID) {
            return RespState.ERR_RKEY_VIOLATION; // invalidated or deregistered in the middle of the message
        }
        if (kind == OperationKind.ATOMIC_WRITE && (p.payloadLength() != targetResid || targetResid != 8)) {
            // rxe_resp.c check_rkey: the payload must be the RETH's length (RESPST_ERR_LENGTH); an ATOMIC WRITE
            // is 8 bytes (IBTA 1.5 9.4.7), which rxe's atomic_write_reply takes for granted.
            return RespState.ERR_LENGTH;
        }
        if (kind == OperationKind.RDMA_WRITE) {
            int payload = p.payloadLength();
            int mtu = qp.mtu();
            if (targetResid > mtu ? payload != mtu : payload != targetResid) {
                return RespState.ERR_LENGTH; // the packets must add up to the RETH's DMA length
            }
        }
        return RespState.EXECUTE;
    }

    // ---- execution -------------------------------------------------------------------------

    private RespState execute(PacketInfo p) {
        Opcode opcode = p.opcode();
        OperationKind kind = opcode.kind();
        int payload = p.payloadLength();
        switch (kind) {
            case SEND -> {
                if (qp.type == QpType.UD) {
                    // rxe_net.c rxe_loopback: no ip_local_out, so nobody computed the IPv4 checksum.
                    boolean checksummed = !(rnic.model.has(Quirk.LOOPBACK_IPV4_CHECKSUM_NOT_COMPUTED)
                            && rnic.loopedBack(p));
                    int result = cursor.placeGrh(p, rnic.memoryRegions, qp.receivePd, checksummed);
                    if (result != SgeCopy.OK) {
                        return receiveError(result);
                    }
                }
                PayloadReference byReference = rnic.incomingPayload();
                int result = byReference != null
                        ? SgeCopy.scatter(rnic.memoryRegions, qp.receivePd, cursor.sges, cursor.numSge,
                                cursor.written, byReference)
                        : SgeCopy.scatter(rnic.memoryRegions, qp.receivePd, cursor.sges, cursor.numSge,
                                cursor.written, p.buffer(), p.payloadOffset(), payload);
                if (result != SgeCopy.OK) {
                    return receiveError(result);
                }
                cursor.written += payload;
            }
            case RDMA_WRITE -> {
                if (payload > 0) {
                    PayloadReference byReference = rnic.incomingPayload();
                    boolean stored = byReference != null
                            ? target.store(targetVa, byReference.source().segment(), byReference.sourceOffset(), payload)
                            : target.store(targetVa, p.buffer(), p.payloadOffset(), payload);
                    if (!stored) {
                        return RespState.ERR_MEMORY_FAULT;
                    }
                    if (byReference != null) {
                        placedAtFrame = rnic.counter(RnicCounter.FRAMES_RECEIVED);
                        placedAtChange = qp.changes;
                    }
                    targetVa += payload;
                    targetResid -= payload;
                }
            }
            case RDMA_READ_REQUEST -> {
                return RespState.READ_REPLY;
            }
            case ATOMIC -> {
                return RespState.ATOMIC_REPLY;
            }
            case ATOMIC_WRITE -> {
                return RespState.ATOMIC_WRITE_REPLY;
            }
            case FLUSH -> {
                return RespState.PROCESS_FLUSH;
            }
            default -> throw new IllegalStateException("checked in CHECK_OP_VALID: " + opcode);
        }
        boolean invalidateFailed = opcode.hasInvalidate()
                && rnic.memoryRegions.invalidate(p.invalidateRkey(), qp.pd) != MemoryRegionTable.Check.OK;
        if (invalidateFailed && !rnic.model.has(Quirk.FAILED_SEND_INVALIDATE_IS_ACKNOWLEDGED)) {
            return RespState.ERR_INVALIDATE_RKEY;
        }
        if (invalidateFailed) {
            // rxe_resp.c RESPST_ERR_INVALIDATE_RKEY, "RC - Class J": the message counts as executed and is
            // ACKed, its receive completes REM_INV_REQ_ERR and the QP goes to ERR.
            nakSyndrome = ResponsePackets.ACK_UNLIMITED;
            wqeStatus = WcStatus.REM_INV_REQ_ERR;
            goToError = true;
        }
        if (opcode.position().endsMessage()) {
            msn = Psn.next(msn);
            message = null;
        } else {
            message = kind;
        }
        expectedPsn = Psn.next(p.psn());
        if (opcode.completesReceiveWqe()) {
            return RespState.COMPLETE;
        }
        return qp.type == QpType.RC ? RespState.ACKNOWLEDGE : RespState.CLEANUP;
    }

    private RespState receiveError(int result) {
        return switch (result) {
            case SgeCopy.TOO_LONG -> RespState.ERR_RECEIVE_TOO_SMALL;
            case SgeCopy.FAULT -> RespState.ERR_MEMORY_FAULT;
            default -> RespState.ERR_RECEIVE_PROTECTION;
        };
    }

    private RespState readReply(PacketInfo p) {
        out.flushPendingAck(msn);
        msn = Psn.next(msn); // IBTA C9-148: a READ counts as a message once it executes
        int packets = Position.packetCount(targetLength, qp.mtu());
        ReadAtomicResource res = resources.next();
        res.atomic = false;
        res.atomicWrite = false;
        res.flush = false;
        res.firstPsn = p.psn();
        res.packets = packets;
        res.lastPsn = Psn.add(p.psn(), packets - 1);
        res.va = targetVa;
        res.length = targetLength;
        res.rkey = p.rethRkey();
        expectedPsn = Psn.next(res.lastPsn);
        message = null;
        reads.start(res);
        return RespState.CLEANUP;
    }

    private RespState atomicReply(PacketInfo p) {
        if ((targetVa & 7) != 0) {
            return RespState.ERR_MISALIGNED_ATOMIC; // rxe_resp.c: atomic_reply: atomics are 8-byte aligned
        }
        out.flushPendingAck(msn);
        boolean compareSwap = p.opcode().operation() == org.roce4j.wire.Operation.COMPARE_SWAP;
        if (!target.atomic(targetVa, compareSwap, compareSwap ? p.atomicCompare() : p.atomicSwapOrAdd(),
                p.atomicSwapOrAdd(), atomicOriginal)) {
            return RespState.ERR_MEMORY_FAULT;
        }
        long original = atomicOriginal[0];
        msn = Psn.next(msn);
        expectedPsn = Psn.next(p.psn());
        ReadAtomicResource res = resources.next();
        res.atomic = true;
        res.atomicWrite = false;
        res.flush = false;
        res.firstPsn = p.psn();
        res.lastPsn = p.psn();
        res.originalValue = original;
        out.sendAtomicAcknowledge(msn, p.psn(), original);
        return RespState.CLEANUP;
    }

    /**
     * rxe_resp.c atomic_write_reply: the 8 bytes land as one store (IBTA 1.5 9.4.7: no other access sees half
     * of them) at an 8-byte aligned address (else RESPST_ERR_MISALIGNED_ATOMIC: NAK invalid request), after
     * every earlier operation of the QP; a resource remembers it so that a duplicate is answered without
     * writing again; the answer is an RDMA READ Response Only with no payload (send_read_response_ack).
     */
    private RespState atomicWriteReply(PacketInfo p) {
        if ((targetVa & 7) != 0) {
            return RespState.ERR_MISALIGNED_ATOMIC;
        }
        out.flushPendingAck(msn);
        if (!target.atomicWrite(targetVa, p.buffer(), p.payloadOffset())) {
            return RespState.ERR_MEMORY_FAULT;
        }
        msn = Psn.next(msn);
        expectedPsn = Psn.next(p.psn());
        message = null;
        ReadAtomicResource res = resources.next();
        res.atomic = true;
        res.atomicWrite = true;
        res.flush = false;
        res.firstPsn = p.psn();
        res.lastPsn = p.psn();
        out.sendReadResponseAcknowledge(msn, p.psn());
        return RespState.CLEANUP;
    }

    /**
     * rxe_resp.c process_flush (IBTA 1.5 9.4.8): every earlier request of the QP has been executed (this responder
     * places each into memory before it takes the next, in PSN order), so the data is placed; a release fence
     * then makes it visible to every thread before the answer goes out, as rxe's wmb(). Global visibility needs
     * nothing more on the JVM's memory, and persistence cannot be asked for: no region here has FLUSH_PERSISTENT
     * (the emulator's memory is not persistent memory). A resource remembers the FLUSH so that a duplicate is
     * answered again; the answer is an RDMA READ Response Only with no payload (send_read_response_ack).
     */
    private RespState processFlush(PacketInfo p) {
        out.flushPendingAck(msn);
        VarHandle.releaseFence();
        msn = Psn.next(msn);
        expectedPsn = Psn.next(p.psn());
        message = null;
        ReadAtomicResource res = resources.next();
        res.atomic = true;
        res.atomicWrite = false;
        res.flush = true;
        res.firstPsn = p.psn();
        res.lastPsn = p.psn();
        out.sendReadResponseAcknowledge(msn, p.psn());
        return RespState.CLEANUP;
    }

    /** The region rights a FLUSH of these placement-type bits needs (rxe_resp.c check_rkey). */
    private static int flushAccess(int placementType) {
        int access = 0;
        for (FlushType type : FlushType.values()) {
            if ((placementType & type.bit()) != 0) {
                access |= type.access().bit();
            }
        }
        return access;
    }

    private RespState complete(PacketInfo p) {
        if (cursor.active) {
            cursor.active = false;
            Opcode opcode = p.opcode();
            if (wqeStatus == WcStatus.SUCCESS) {
                boolean write = opcode.kind() == OperationKind.RDMA_WRITE;
                int flags = 0;
                int imm = 0;
                int invalidated = 0;
                int srcQp = qp.destQpn;
                if (qp.type == QpType.UD) {
                    flags |= WcFlag.GRH.bit();
                    srcQp = p.dethSourceQp();
                }
                if (opcode.hasImmediate()) {
                    flags |= WcFlag.WITH_IMM.bit();
                    imm = p.immediateData();
                }
                if (opcode.hasInvalidate()) {
                    // rxe_resp.c do_complete writes the kernel's IB_WC_WITH_INVALIDATE (1 << 2) into the user CQE:
                    // libibverbs reads that bit as IBV_WC_IP_CSUM_OK.
                    flags |= rnic.model.has(Quirk.WITH_INV_REPORTED_AS_IP_CSUM_OK)
                            ? WcFlag.IP_CSUM_OK.bit() : WcFlag.WITH_INV.bit();
                    invalidated = p.invalidateRkey();
                }
                qp.completeReceive(cursor.wrId, WcStatus.SUCCESS, write ? WcOpcode.RECV_RDMA_WITH_IMM : WcOpcode.RECV,
                        (int) (write ? targetLength : cursor.written), imm, invalidated, srcQp, flags,
                        p.solicitedEvent());
            } else {
                qp.completeReceive(cursor.wrId, wqeStatus, WcOpcode.RECV, 0, 0, 0, qp.destQpn, 0, true);
            }
        }
        return qp.type == QpType.RC ? RespState.ACKNOWLEDGE : RespState.CLEANUP;
    }

    /** RC only: an error NAK goes out at once; an ACK the requester asked for is owed and coalesced. */
    private RespState acknowledge(PacketInfo p) {
        if (qp.type != QpType.RC) {
            return RespState.CLEANUP;
        }
        if (nakSyndrome >= 0) {
            out.sendAcknowledge(msn, nakSyndrome, p.psn());
        } else if (p.ackReq()) {
            out.owe(p.psn());
        }
        return RespState.CLEANUP;
    }

    private RespState cleanup() {
        if (goToError) {
            if (errorEvent != null) {
                qp.raise(errorEvent);
            }
            qp.enterError();
        }
        return RespState.DONE;
    }

    // ---- errors ----------------------------------------------------------------------------

    /**
     * The keys were right but the registered memory could not be touched (its arena was closed after
     * registration, it is confined to a thread the RNIC does not run on; see {@link MemoryRegion#store}).
     * The fault is the responder's own, not the requester's, so it is rxe's class A
     * (rxe_resp.c RESPST_ERR_MALFORMED_WQE, for every QP type): NAK "remote operational error"
     * (AETH NAK code 3: the responder could not complete the request for a reason local to it), the
     * receive WQE being filled, if any, completes LOC_QP_OP_ERR, and the QP goes to the error state.
     * A WRITE or READ leaves no receive WQE to report the error, so the QP also raises QP_FATAL (IBTA
     * 11.6.3.1, "local work queue catastrophic error": an error that is neither an invalid request
     * nor an access violation), raised for every such fault so the owner always hears of it.
     */
    private RespState memoryFault() {
        rnic.count(RnicCounter.MEMORY_ACCESS_ERRORS);
        if (qp.type == QpType.RC) {
            nakSyndrome = AethSyndrome.nak(NakCode.REMOTE_OPERATIONAL_ERROR);
        }
        wqeStatus = WcStatus.LOC_QP_OP_ERR;
        goToError = true;
        errorEvent = AsyncEventType.QP_FATAL;
        return RespState.COMPLETE;
    }

    /** rxe {@code do_class_ac_error}: NAK, fail the WQE being filled, then the QP goes to error. */
    private RespState classC(NakCode nak, WcStatus status, AsyncEventType event) {
        nakSyndrome = AethSyndrome.nak(nak);
        wqeStatus = status;
        goToError = true;
        errorEvent = event;
        return RespState.COMPLETE;
    }

    /**
     * The message cannot be placed in the receive WQE's buffers: IBTA 11.6.2's local error for the cause
     * (LOC_LEN_ERR, LOC_PROT_ERR), or rxe's malformed WQE ({@link Quirk#RECEIVE_BUFFER_ERRORS_ARE_LOC_QP_OP_ERR}).
     */
    private RespState receiveBufferError(NakCode nak, WcStatus status) {
        if (rnic.model.has(Quirk.RECEIVE_BUFFER_ERRORS_ARE_LOC_QP_OP_ERR)) {
            return malformedWqe();
        }
        return localError(nak, status);
    }

    /** rxe_resp.c RESPST_ERR_MALFORMED_WQE, "All, Class A": LOC_QP_OP_ERR, NAK remote operational error. */
    private RespState malformedWqe() {
        return localError(NakCode.REMOTE_OPERATIONAL_ERROR, WcStatus.LOC_QP_OP_ERR);
    }

    /** The receive WQE itself is at fault: it completes with a local error, and RC NAKs the sender. */
    private RespState localError(NakCode nak, WcStatus status) {
        if (qp.type == QpType.RC) {
            nakSyndrome = AethSyndrome.nak(nak);
        }
        wqeStatus = status;
        goToError = true;
        return RespState.COMPLETE;
    }

    private RespState receiverNotReady(PacketInfo p) {
        if (qp.type == QpType.RC) {
            // IBTA 9.7.5.2.8: RNR NAK with the QP's min_rnr_timer; the requester retries this PSN.
            out.sendAcknowledge(msn, AethSyndrome.rnrNak(qp.minRnrTimer), p.psn());
            return RespState.CLEANUP;
        }
        rnic.count(RnicCounter.DROPPED_NO_RECEIVE_WQE);
        if (qp.type == QpType.UC) {
            dropMessage = true;
        }
        return RespState.CLEANUP;
    }

    /**
     * A UD datagram longer than the receive WQE: dropped and counted, the WQE kept for the next datagram,
     * the QP left in RTS. A UD QP serves any sender that knows its QPN and Q_Key, so one remote's datagram
     * must not take the service down, as LOC_LEN_ERR and the error state would. IBTA's responder error
     * classes have an unreliable service silently drop a request it cannot take (class D, what rxe_resp.c
     * does with RESPST_ERR_LENGTH on UD: {@code qp->resp.drop_msg = 1}, no completion); nothing is lost
     * without a trace, as {@link RnicCounter#DROPPED_UD_TOO_LONG} counts it.
     */
    private RespState datagramTooLong() {
        if (rnic.model.has(Quirk.UD_DATAGRAM_TOO_LONG_FAILS_THE_RECEIVE)) {
            return malformedWqe(); // kernel 6.1 rxe_resp.c send_data_in: copy_data -EINVAL, no check_length for UD
        }
        rnic.count(RnicCounter.DROPPED_UD_TOO_LONG);
        abandonMessage();
        return RespState.CLEANUP;
    }

    /** UC and UD answer nothing: the message is dropped and counted. */
    private RespState dropMessage() {
        rnic.count(RnicCounter.DROPPED_UC_MESSAGE);
        if (qp.type == QpType.UC) {
            dropMessage = true;
        }
        abandonMessage();
        return RespState.CLEANUP;
    }

    /** rxe class D1: a message given up; the receive WQE it took is kept, as new, for the next one. */
    private void abandonMessage() {
        message = null;
        target = null;
        if (cursor.active) {
            cursor.written = 0;
        }
    }
}
