package org.roce4j.emulator.transport;

import org.roce4j.emulator.RnicCounter;
import org.roce4j.emulator.verbs.DeviceLimits;
import org.roce4j.emulator.verbs.MemoryRegionTable;
import org.roce4j.emulator.node.Rnic;
import org.roce4j.emulator.verbs.EmulatedQp;
import org.roce4j.emulator.verbs.MemoryRegion;
import org.roce4j.verbs.AccessFlag;
import org.roce4j.verbs.AsyncEventType;
import org.roce4j.verbs.QpType;
import org.roce4j.verbs.WcFlag;
import org.roce4j.verbs.WcOpcode;
import org.roce4j.verbs.WcStatus;
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
 * counted (a receive WQE already taken is kept for the next message, as rxe's class D1).
 */
public final class Responder {
    enum State {
        CHECK_PSN, CHECK_OP_SEQ, CHECK_OP_VALID, CHECK_RESOURCE, CHECK_LENGTH, CHECK_RKEY, EXECUTE,
        READ_REPLY, ATOMIC_REPLY, COMPLETE, ACKNOWLEDGE, CLEANUP, DUPLICATE_REQUEST,
        ERR_PSN_OUT_OF_SEQ, ERR_MISSING_OPCODE_FIRST, ERR_MISSING_OPCODE_LAST, ERR_UNSUPPORTED_OPCODE,
        ERR_TOO_MANY_RD_ATOMIC, ERR_MISALIGNED_ATOMIC, ERR_LENGTH, ERR_RNR, ERR_RKEY_VIOLATION,
        ERR_INVALIDATE_RKEY, ERR_RECEIVE_TOO_SMALL, ERR_RECEIVE_PROTECTION, ERR_MEMORY_FAULT, ERR_DROP_MESSAGE, DONE
    }

    private static final int NO_MESSAGE = 0;
    private static final int IN_SEND = 1;
    private static final int IN_WRITE = 2;
    static final int GRH_LENGTH = 40;
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
    final ReceiveCursor cursor;
    private final byte[] grh = new byte[GRH_LENGTH];
    private final ResponsePackets out;
    /** The READ responses owed, sent as the link has room. */
    public final ReadReplies reads;

    /** The PSN expected next (rxe {@code resp.psn}). */
    public int expectedPsn;
    /** Messages completed (IBTA 9.7.5.1.3, the MSN every AETH carries). */
    int msn;
    private boolean sentPsnNak;
    private int message = NO_MESSAGE;
    private boolean dropMessage;
    private MemoryRegion target;
    private long targetVa;
    private long targetResid;
    private long targetLength;
    private ReadAtomicResource[] resources = new ReadAtomicResource[0];
    private int nextResource;

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
    }

    /** Sends the coalesced ACK owed, if any; the duty cycle calls this. */
    public int flushPendingAck() {
        return out.flushPendingAck(msn);
    }

    public void startAt(int psn) {
        expectedPsn = psn;
    }

    public void resizeResources(int count) {
        if (count != resources.length) {
            resources = new ReadAtomicResource[count];
            nextResource = 0;
        }
    }

    public void reset() {
        cursor.active = false;
        message = NO_MESSAGE;
        dropMessage = false;
        sentPsnNak = false;
        target = null;
        out.forget();
        reads.stop();
        msn = 0;
        for (ReadAtomicResource r : resources) {
            if (r != null) {
                r.used = false;
            }
        }
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

    public void onRequest(PacketInfo p, long nowNanos) {
        if (!reads.admits(p)) {
            return; // responses of a long READ are still owed: rxe would hold this request behind them
        }
        nakSyndrome = -1;
        wqeStatus = WcStatus.SUCCESS;
        goToError = false;
        errorEvent = null;
        State state = State.CHECK_PSN;
        while (state != State.DONE) {
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
                case COMPLETE -> complete(p);
                case ACKNOWLEDGE -> acknowledge(p);
                case CLEANUP -> cleanup();
                case DUPLICATE_REQUEST -> duplicateRequest(p);
                case ERR_PSN_OUT_OF_SEQ -> {
                    out.sendAcknowledge(msn, 0x60 | NakCode.PSN_SEQUENCE_ERROR.code(), expectedPsn);
                    yield State.CLEANUP;
                }
                case ERR_MISSING_OPCODE_FIRST, ERR_MISSING_OPCODE_LAST, ERR_UNSUPPORTED_OPCODE,
                     ERR_TOO_MANY_RD_ATOMIC, ERR_MISALIGNED_ATOMIC, ERR_LENGTH, ERR_INVALIDATE_RKEY ->
                        qp.type == QpType.RC
                                ? classC(NakCode.INVALID_REQUEST, WcStatus.REM_INV_REQ_ERR, AsyncEventType.QP_REQ_ERR)
                                : State.ERR_DROP_MESSAGE;
                case ERR_RNR -> receiverNotReady(p);
                case ERR_RKEY_VIOLATION -> qp.type == QpType.RC
                        ? classC(NakCode.REMOTE_ACCESS_ERROR, WcStatus.REM_ACCESS_ERR, AsyncEventType.QP_ACCESS_ERR)
                        : State.ERR_DROP_MESSAGE;
                case ERR_RECEIVE_TOO_SMALL -> localError(NakCode.INVALID_REQUEST, WcStatus.LOC_LEN_ERR);
                case ERR_RECEIVE_PROTECTION -> localError(NakCode.REMOTE_OPERATIONAL_ERROR, WcStatus.LOC_PROT_ERR);
                case ERR_MEMORY_FAULT -> memoryFault();
                case ERR_DROP_MESSAGE -> dropMessage();
                case DONE -> State.DONE;
            };
        }
    }

    // ---- checks, in rxe's order ------------------------------------------------------------

    private State checkPsn(PacketInfo p) {
        int psn = p.psn();
        switch (qp.type) {
            case RC -> {
                int diff = Psn.compare(psn, expectedPsn);
                if (diff >= RC_PSN_WINDOW || diff < -RC_PSN_WINDOW && !isInSavedResource(psn)) {
                    rnic.count(RnicCounter.DROPPED_PSN_OUT_OF_WINDOW);
                    return State.CLEANUP;
                }
                if (diff > 0) {
                    // IBTA 9.7.5.1.2, rxe_resp.c: check_psn (sent_psn_nak): NAK a sequence error once, then drop
                    // until the retry arrives.
                    if (sentPsnNak) {
                        return State.CLEANUP;
                    }
                    sentPsnNak = true;
                    rnic.count(RnicCounter.OUT_OF_SEQUENCE_REQUESTS);
                    return State.ERR_PSN_OUT_OF_SEQ;
                }
                if (diff < 0) {
                    rnic.count(RnicCounter.DUPLICATE_REQUESTS);
                    return State.DUPLICATE_REQUEST;
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
                        return State.CLEANUP;
                    }
                    abandonMessage();
                    if (starts) {
                        dropMessage = false;
                        return State.CHECK_OP_SEQ;
                    }
                    return State.ERR_DROP_MESSAGE;
                }
            }
            case UD -> {
            }
        }
        return State.CHECK_OP_SEQ;
    }

    private State checkOpSequence(PacketInfo p) {
        Opcode opcode = p.opcode();
        boolean starts = opcode.position().startsMessage();
        boolean ok = switch (message) {
            case IN_SEND -> opcode.kind() == OperationKind.SEND && !starts;
            case IN_WRITE -> opcode.kind() == OperationKind.RDMA_WRITE && !starts;
            default -> starts;
        };
        if (ok) {
            return State.CHECK_OP_VALID;
        }
        if (qp.type == QpType.UC) {
            abandonMessage();
            return starts ? State.CHECK_OP_VALID : State.ERR_DROP_MESSAGE;
        }
        return message == NO_MESSAGE ? State.ERR_MISSING_OPCODE_FIRST : State.ERR_MISSING_OPCODE_LAST;
    }

    private State checkOpValid(PacketInfo p) {
        OperationKind kind = p.opcode().kind();
        int needed = switch (kind) {
            case RDMA_READ_REQUEST -> AccessFlag.REMOTE_READ.bit();
            case RDMA_WRITE -> AccessFlag.REMOTE_WRITE.bit();
            case ATOMIC -> AccessFlag.REMOTE_ATOMIC.bit();
            case SEND -> 0;
            default -> -1; // FLUSH, ATOMIC WRITE: not supported by this responder
        };
        if (needed == 0) {
            return State.CHECK_RESOURCE;
        }
        if (needed > 0 && (qp.accessFlags & needed) != 0) {
            return State.CHECK_RESOURCE;
        }
        return qp.type == QpType.RC ? State.ERR_UNSUPPORTED_OPCODE : State.ERR_DROP_MESSAGE;
    }

    private State checkResource(PacketInfo p) {
        Opcode opcode = p.opcode();
        OperationKind kind = opcode.kind();
        if (kind == OperationKind.RDMA_READ_REQUEST || kind == OperationKind.ATOMIC) {
            return qp.maxDestRdAtomic > 0 ? State.CHECK_LENGTH : State.ERR_TOO_MANY_RD_ATOMIC;
        }
        boolean takesWqe = kind == OperationKind.SEND ? opcode.position().startsMessage() : opcode.hasImmediate();
        if (takesWqe && !cursor.active) {
            boolean taken = qp.srq != null ? qp.srq.take(cursor) : qp.rq.take(cursor);
            if (!taken) {
                return State.ERR_RNR;
            }
        }
        return State.CHECK_LENGTH;
    }

    /** rxe {@code check_length}: every packet but the last carries exactly the MTU. */
    private State checkLength(PacketInfo p) {
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
                return State.ERR_LENGTH;
            }
        }
        if (opcode.has(HeaderType.RETH) && Integer.toUnsignedLong(p.rethDmaLength()) > DeviceLimits.MAX_MESSAGE_LENGTH) {
            return State.ERR_LENGTH;
        }
        return State.CHECK_RKEY;
    }

    /** rxe {@code check_rkey}: key, PD, access and bounds of the whole access, before anything is written. */
    private State checkRkey(PacketInfo p) {
        Opcode opcode = p.opcode();
        OperationKind kind = opcode.kind();
        int access;
        int rkey;
        boolean first = opcode.position().startsMessage();
        switch (kind) {
            case RDMA_WRITE, RDMA_READ_REQUEST -> {
                access = kind == OperationKind.RDMA_WRITE ? AccessFlag.REMOTE_WRITE.bit() : AccessFlag.REMOTE_READ.bit();
                if (first) {
                    targetVa = p.rethVirtualAddress();
                    targetLength = Integer.toUnsignedLong(p.rethDmaLength());
                    targetResid = targetLength;
                    target = null;
                    if (targetLength == 0) {
                        // IBTA 9.4.1.1 / rxe: a zero-length access needs no valid address or key.
                        return p.payloadLength() == 0 ? State.EXECUTE : State.ERR_LENGTH;
                    }
                }
                rkey = first ? p.rethRkey() : 0;
            }
            case ATOMIC -> {
                access = AccessFlag.REMOTE_ATOMIC.bit();
                targetVa = p.atomicVirtualAddress();
                targetLength = 8;
                targetResid = 8;
                rkey = p.atomicRkey();
                first = true;
            }
            default -> {
                return State.EXECUTE;
            }
        }
        if (first) {
            if (rnic.memoryRegions.checkRemote(rkey, qp.pd, access, targetVa, targetResid)
                    != MemoryRegionTable.Check.OK) {
                return State.ERR_RKEY_VIOLATION;
            }
            target = rnic.memoryRegions.find(rkey);
        } else if (target == null || target.state != MemoryRegion.State.VALID) {
            return State.ERR_RKEY_VIOLATION; // invalidated or deregistered in the middle of the message
        }
        if (kind == OperationKind.RDMA_WRITE) {
            int payload = p.payloadLength();
            int mtu = qp.mtu();
            if (targetResid > mtu ? payload != mtu : payload != targetResid) {
                return State.ERR_LENGTH; // the packets must add up to the RETH's DMA length
            }
        }
        return State.EXECUTE;
    }

    // ---- execution -------------------------------------------------------------------------

    private State execute(PacketInfo p) {
        Opcode opcode = p.opcode();
        OperationKind kind = opcode.kind();
        int payload = p.payloadLength();
        switch (kind) {
            case SEND -> {
                if (qp.type == QpType.UD) {
                    int result = placeGrh(p);
                    if (result != SgeCopy.OK) {
                        return receiveError(result);
                    }
                }
                int result = SgeCopy.scatter(rnic.memoryRegions, qp.pd, cursor.sgeAddress, cursor.sgeLength,
                        cursor.sgeLkey, 0, cursor.numSge, cursor.written, p.buffer(), p.payloadOffset(), payload);
                if (result != SgeCopy.OK) {
                    return receiveError(result);
                }
                cursor.written += payload;
            }
            case RDMA_WRITE -> {
                if (payload > 0) {
                    if (!target.store(targetVa, p.buffer(), p.payloadOffset(), payload)) {
                        return State.ERR_MEMORY_FAULT;
                    }
                    targetVa += payload;
                    targetResid -= payload;
                }
            }
            case RDMA_READ_REQUEST -> {
                return State.READ_REPLY;
            }
            case ATOMIC -> {
                return State.ATOMIC_REPLY;
            }
            default -> throw new IllegalStateException("checked in CHECK_OP_VALID: " + opcode);
        }
        if (opcode.hasInvalidate()
                && rnic.memoryRegions.invalidate(p.invalidateRkey(), qp.pd) != MemoryRegionTable.Check.OK) {
            return State.ERR_INVALIDATE_RKEY;
        }
        boolean ends = opcode.position().endsMessage();
        if (ends) {
            msn = Psn.next(msn);
            message = NO_MESSAGE;
        } else {
            message = kind == OperationKind.SEND ? IN_SEND : IN_WRITE;
        }
        expectedPsn = Psn.next(p.psn());
        if (ends && (kind == OperationKind.SEND || opcode.hasImmediate())) {
            return State.COMPLETE;
        }
        return qp.type == QpType.RC ? State.ACKNOWLEDGE : State.CLEANUP;
    }

    private State receiveError(int result) {
        return switch (result) {
            case SgeCopy.TOO_LONG -> State.ERR_RECEIVE_TOO_SMALL;
            case SgeCopy.FAULT -> State.ERR_MEMORY_FAULT;
            default -> State.ERR_RECEIVE_PROTECTION;
        };
    }

    /**
     * UD receives start with a 40-byte GRH (IBTA 11.4.1.1): over IPv6 the IPv6 header; over IPv4,
     * as rxe and hardware place it, 20 zero bytes and then the IPv4 header.
     */
    private int placeGrh(PacketInfo p) {
        byte[] b = p.buffer();
        int ip = rnic.receivedIpOffset(); // the frame's, or the header an external link wrote
        if (rnic.receivedIpVersion() == 6) {
            System.arraycopy(b, ip, grh, 0, GRH_LENGTH);
        } else {
            java.util.Arrays.fill(grh, 0, 20, (byte) 0);
            System.arraycopy(b, ip, grh, 20, 20);
        }
        int result = SgeCopy.scatter(rnic.memoryRegions, qp.pd, cursor.sgeAddress, cursor.sgeLength, cursor.sgeLkey,
                0, cursor.numSge, 0, grh, 0, GRH_LENGTH);
        if (result == SgeCopy.OK) {
            cursor.written = GRH_LENGTH;
        }
        return result;
    }

    private State readReply(PacketInfo p) {
        out.flushPendingAck(msn);
        msn = Psn.next(msn); // IBTA C9-148: a READ counts as a message once it executes
        int packets = Opcodes.packets(targetLength, qp.mtu());
        ReadAtomicResource res = nextResource();
        res.atomic = false;
        res.firstPsn = p.psn();
        res.packets = packets;
        res.lastPsn = Psn.add(p.psn(), packets - 1);
        res.va = targetVa;
        res.length = targetLength;
        res.rkey = p.rethRkey();
        expectedPsn = Psn.next(res.lastPsn);
        message = NO_MESSAGE;
        reads.start(res);
        return State.CLEANUP;
    }

    private State atomicReply(PacketInfo p) {
        if ((targetVa & 7) != 0) {
            return State.ERR_MISALIGNED_ATOMIC; // rxe_resp.c: atomic_reply: atomics are 8-byte aligned
        }
        out.flushPendingAck(msn);
        boolean compareSwap = p.opcode().operation() == org.roce4j.wire.Operation.COMPARE_SWAP;
        if (!target.atomic(targetVa, compareSwap, compareSwap ? p.atomicCompare() : p.atomicSwapOrAdd(),
                p.atomicSwapOrAdd(), atomicOriginal)) {
            return State.ERR_MEMORY_FAULT;
        }
        long original = atomicOriginal[0];
        msn = Psn.next(msn);
        expectedPsn = Psn.next(p.psn());
        ReadAtomicResource res = nextResource();
        res.atomic = true;
        res.firstPsn = p.psn();
        res.lastPsn = p.psn();
        res.originalValue = original;
        out.sendAtomicAcknowledge(msn, p.psn(), original);
        return State.CLEANUP;
    }

    private State complete(PacketInfo p) {
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
                    flags |= WcFlag.WITH_INV.bit();
                    invalidated = p.invalidateRkey();
                }
                qp.completeReceive(cursor.wrId, WcStatus.SUCCESS, write ? WcOpcode.RECV_RDMA_WITH_IMM : WcOpcode.RECV,
                        (int) (write ? targetLength : cursor.written), imm, invalidated, srcQp, flags,
                        p.solicitedEvent());
            } else {
                qp.completeReceive(cursor.wrId, wqeStatus, WcOpcode.RECV, 0, 0, 0, qp.destQpn, 0, true);
            }
        }
        return qp.type == QpType.RC ? State.ACKNOWLEDGE : State.CLEANUP;
    }

    /** RC only: an error NAK goes out at once; an ACK the requester asked for is owed and coalesced. */
    private State acknowledge(PacketInfo p) {
        if (qp.type != QpType.RC) {
            return State.CLEANUP;
        }
        if (nakSyndrome >= 0) {
            out.sendAcknowledge(msn, nakSyndrome, p.psn());
        } else if (p.ackReq()) {
            out.owe(p.psn());
        }
        return State.CLEANUP;
    }

    private State cleanup() {
        if (goToError) {
            if (errorEvent != null) {
                qp.raise(errorEvent);
            }
            qp.enterError();
        }
        return State.DONE;
    }

    /** IBTA 9.7.5.1.5 (C9-105, C9-107): re-ACK old SENDs and WRITEs, replay READs and atomics. */
    private State duplicateRequest(PacketInfo p) {
        OperationKind kind = p.opcode().kind();
        int psn = p.psn();
        if (kind == OperationKind.SEND || kind == OperationKind.RDMA_WRITE) {
            out.sendAcknowledge(msn, ResponsePackets.ACK_UNLIMITED, Psn.add(expectedPsn, -1));
            return State.CLEANUP;
        }
        ReadAtomicResource res = findResource(psn, kind == OperationKind.ATOMIC);
        if (res == null) {
            return State.CLEANUP; // rxe: class D, the request is dropped
        }
        if (res.atomic) {
            out.sendAtomicAcknowledge(msn, psn, res.originalValue);
            return State.CLEANUP;
        }
        long va = p.rethVirtualAddress();
        long length = Integer.toUnsignedLong(p.rethDmaLength());
        if (p.rethRkey() != res.rkey || va < res.va || va + length > res.va + res.length) {
            return State.CLEANUP;
        }
        if (length > 0 && rnic.memoryRegions.checkRemote(res.rkey, qp.pd, AccessFlag.REMOTE_READ.bit(), va, length)
                != MemoryRegionTable.Check.OK) {
            return State.CLEANUP;
        }
        out.flushPendingAck(msn);
        reads.replay(res, psn, va, length);
        return State.CLEANUP;
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
    private State memoryFault() {
        rnic.count(RnicCounter.MEMORY_ACCESS_ERRORS);
        if (qp.type == QpType.RC) {
            nakSyndrome = 0x60 | NakCode.REMOTE_OPERATIONAL_ERROR.code();
        }
        wqeStatus = WcStatus.LOC_QP_OP_ERR;
        goToError = true;
        errorEvent = AsyncEventType.QP_FATAL;
        return State.COMPLETE;
    }

    /** rxe {@code do_class_ac_error}: NAK, fail the WQE being filled, then the QP goes to error. */
    private State classC(NakCode nak, WcStatus status, AsyncEventType event) {
        nakSyndrome = 0x60 | nak.code();
        wqeStatus = status;
        goToError = true;
        errorEvent = event;
        return State.COMPLETE;
    }

    /** The receive WQE itself is at fault: it completes with a local error, and RC NAKs the sender. */
    private State localError(NakCode nak, WcStatus status) {
        if (qp.type == QpType.RC) {
            nakSyndrome = 0x60 | nak.code();
        }
        wqeStatus = status;
        goToError = true;
        return State.COMPLETE;
    }

    private State receiverNotReady(PacketInfo p) {
        if (qp.type == QpType.RC) {
            // IBTA 9.7.5.2.8: RNR NAK with the QP's min_rnr_timer; the requester retries this PSN.
            out.sendAcknowledge(msn, 0x20 | (qp.minRnrTimer & 0x1F), p.psn());
            return State.CLEANUP;
        }
        rnic.count(RnicCounter.DROPPED_NO_RECEIVE_WQE);
        if (qp.type == QpType.UC) {
            dropMessage = true;
        }
        return State.CLEANUP;
    }

    /** UC and UD answer nothing: the message is dropped and counted. */
    private State dropMessage() {
        rnic.count(RnicCounter.DROPPED_UC_MESSAGE);
        if (qp.type == QpType.UC) {
            dropMessage = true;
        }
        abandonMessage();
        return State.CLEANUP;
    }

    /** rxe class D1: a message given up; the receive WQE it took is kept, as new, for the next one. */
    private void abandonMessage() {
        message = NO_MESSAGE;
        target = null;
        if (cursor.active) {
            cursor.written = 0;
        }
    }

    // ---- read/atomic resources -------------------------------------------------------------

    private ReadAtomicResource nextResource() {
        if (resources.length == 0) {
            resources = new ReadAtomicResource[1];
        }
        int index = nextResource;
        nextResource = (nextResource + 1) % resources.length;
        ReadAtomicResource res = resources[index];
        if (res == null) {
            res = new ReadAtomicResource();
            resources[index] = res;
        }
        res.used = true;
        return res;
    }

    /** True when {@code psn} is one of a saved READ's or atomic's PSNs: a duplicate of it is replayed. */
    private boolean isInSavedResource(int psn) {
        return findResource(psn, false) != null || findResource(psn, true) != null;
    }

    private ReadAtomicResource findResource(int psn, boolean atomic) {
        for (ReadAtomicResource res : resources) {
            if (res != null && res.used && res.atomic == atomic
                    && Psn.compare(psn, res.firstPsn) >= 0 && Psn.compare(psn, res.lastPsn) <= 0) {
                return res;
            }
        }
        return null;
    }
}
