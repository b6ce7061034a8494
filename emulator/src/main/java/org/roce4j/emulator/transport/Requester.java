package org.roce4j.emulator.transport;

import org.roce4j.emulator.Quirk;
import org.roce4j.emulator.fabric.PayloadReference;
import org.roce4j.emulator.node.NetworkPath;
import org.roce4j.emulator.verbs.MemoryRegionTable;
import org.roce4j.emulator.RnicCounter;
import org.roce4j.emulator.node.Rnic;
import org.roce4j.emulator.verbs.DeviceCapabilitiesEx;
import org.roce4j.emulator.verbs.EmulatedQp;
import org.roce4j.verbs.AccessFlag;
import org.roce4j.verbs.AsyncEventType;
import org.roce4j.verbs.QpState;
import org.roce4j.verbs.QpType;
import org.roce4j.verbs.SendFlag;
import org.roce4j.verbs.WcStatus;
import org.roce4j.verbs.WrOpcode;
import org.roce4j.wire.HeaderType;
import org.roce4j.wire.Opcode;
import org.roce4j.wire.Operation;
import org.roce4j.wire.PacketWriter;
import org.roce4j.wire.Position;
import org.roce4j.wire.Psn;
import org.roce4j.wire.Transport;

/**
 * A QP's requester, after rxe's {@code rxe_req.c}: turns send WQEs into packets in posting order.
 * A message is cut into FIRST/MIDDLE/LAST packets of the path MTU (or one ONLY packet), each with
 * the next PSN; an RDMA READ request takes as many PSNs as responses it expects. AckReq is set on
 * the last packet of a message and at least every {@link #MAX_PACKETS_PER_ACK} packets;
 * no more than {@link SendWindow#MAX_UNACKED_PSNS} PSNs are outstanding (rxe's window). READs and
 * atomics wait for a credit of {@code max_rd_atomic} (IBTA 9.5.7), FENCE waits for every earlier
 * READ and atomic to complete (IBTA 10.8.3.3). In SQD, messages already begun finish and no new one
 * starts.
 */
public final class Requester {
    /**
     * rxe's {@code rxe_param.h} RXE_MAX_PKT_PER_ACK: the requester asks for an ACK at least this
     * often. A parameter of the transport engine, rxe's on every profile, not a device's limit.
     */
    static final int MAX_PACKETS_PER_ACK = 64;

    /**
     * The operation each work request's message is when it fits one packet; {@link Opcode#at} gives
     * its FIRST/MIDDLE/LAST packets from the opcode table (what rxe_req.c {@code next_opcode} spells out).
     */
    private static final Operation[] ONLY_OPERATION = new Operation[WrOpcode.values().length];

    static {
        ONLY_OPERATION[WrOpcode.SEND.ordinal()] = Operation.SEND_ONLY;
        ONLY_OPERATION[WrOpcode.SEND_WITH_IMM.ordinal()] = Operation.SEND_ONLY_WITH_IMMEDIATE;
        ONLY_OPERATION[WrOpcode.SEND_WITH_INV.ordinal()] = Operation.SEND_ONLY_WITH_INVALIDATE;
        ONLY_OPERATION[WrOpcode.RDMA_WRITE.ordinal()] = Operation.RDMA_WRITE_ONLY;
        ONLY_OPERATION[WrOpcode.RDMA_WRITE_WITH_IMM.ordinal()] = Operation.RDMA_WRITE_ONLY_WITH_IMMEDIATE;
        ONLY_OPERATION[WrOpcode.RDMA_READ.ordinal()] = Operation.RDMA_READ_REQUEST;
        ONLY_OPERATION[WrOpcode.ATOMIC_CMP_AND_SWP.ordinal()] = Operation.COMPARE_SWAP;
        ONLY_OPERATION[WrOpcode.ATOMIC_FETCH_AND_ADD.ordinal()] = Operation.FETCH_ADD;
        ONLY_OPERATION[WrOpcode.ATOMIC_WRITE.ordinal()] = Operation.ATOMIC_WRITE; // its 8 bytes: RETH + payload
        ONLY_OPERATION[WrOpcode.FLUSH.ordinal()] = Operation.FLUSH; // FETH + RETH, no payload (rxe_req.c next_opcode_rc)
    }

    private final EmulatedQp qp;
    private final Rnic rnic;
    private final SendQueue sq;
    private final Transport transport;

    /** Shared with the completer: the next PSN, the oldest unacknowledged one, the READ/atomic credits. */
    private final SendWindow window;
    /** The first PSN never sent: anything before it sent again is a retransmission. */
    private int freshPsn;
    /** Sequence number of the WQE being sent (or next to start). */
    long next;
    /** Packets of that WQE already sent (READ: responses already received when re-requesting). */
    int packetIndex;
    private int packetsSinceAckReq;
    private boolean drainReported;

    /**
     * The least payload sent by reference: a shorter frame is copied by the fabric all the same (it keeps
     * only frames of 1 KiB or more as they were built), and copying its payload along costs less than the
     * reference's bookkeeping.
     */
    static final int BY_REFERENCE_MIN_PAYLOAD = 1024;

    public Requester(EmulatedQp qp, SendWindow window) {
        this.qp = qp;
        this.window = window;
        this.rnic = qp.rnic;
        this.sq = qp.sq;
        this.transport = EmulatedQp.transportOf(qp.type);
    }

    /** sq_psn set by a modify. */
    public void startAt(int firstPsn) {
        window.startAt(firstPsn);
        freshPsn = firstPsn;
    }

    public void reset() {
        next = sq.posted;
        packetIndex = 0;
        window.readAtomicInFlight = 0;
        packetsSinceAckReq = 0;
        drainReported = false;
    }

    /** The send queue was flushed up to {@code end} (what was posted when the flush began): nothing remains to send. */
    public void flushed(long end) {
        next = end;
        packetIndex = 0;
        window.readAtomicInFlight = 0;
    }

    /** True while a started WQE is not yet completed (what SQD drains). */
    public boolean hasSendsInFlight() {
        return sq.retired != next || packetIndex != 0;
    }

    /** RTS → SQD: the SQ_DRAINED event is due once everything begun has completed (IBTA 11.6.3.1). */
    public void enterDrain() {
        drainReported = false;
        checkDrained();
    }

    void checkDrained() {
        if (qp.state == QpState.SQD && !drainReported && !hasSendsInFlight()) {
            drainReported = true;
            if (qp.enSqdAsyncNotify) {
                qp.raise(AsyncEventType.SQ_DRAINED);
            }
        }
    }

    /**
     * Goes back to resend from {@code fromPsn} (a PSN sequence NAK, an RNR NAK, lost responses):
     * the WQE holding that PSN is sent again from that packet on, and everything after it.
     */
    void rewindTo(int fromPsn) {
        for (long seq = sq.retired; seq != sq.posted; seq++) {
            SendWqe wqe = sq.at(seq);
            if (!wqe.started || wqe.state == WqeState.DONE || wqe.state == WqeState.ERROR) {
                continue;
            }
            if (Psn.compare(fromPsn, wqe.firstPsn) >= 0 && Psn.compare(fromPsn, wqe.lastPsn) <= 0) {
                next = seq;
                packetIndex = Psn.distance(wqe.firstPsn, fromPsn);
                window.nextPsn = fromPsn;
                rnic.count(RnicCounter.RETRIES);
                rnic.schedule(qp);
                return;
            }
        }
    }

    /** Sends what the window and the credits allow, at most {@link Rnic#PACKETS_PER_TURN} packets. */
    public int run(long nowNanos) {
        int work = 0;
        while (work < Rnic.PACKETS_PER_TURN) {
            if (next == sq.posted || qp.completer.isWaitingForRnrRetry()) {
                break;
            }
            SendWqe wqe = sq.at(next);
            if (wqe.state == WqeState.ERROR) {
                break; // reported in order by the completer; nothing after it is sent
            }
            if (!wqe.started) {
                if (qp.state == QpState.SQD) {
                    checkDrained();
                    break;
                }
                if (!start(wqe)) {
                    break;
                }
                if (wqe.state != WqeState.PENDING) {
                    work++;
                    if (wqe.state == WqeState.DONE) {
                        next++;
                    }
                    qp.completer.retire();
                    continue;
                }
            }
            if (wqe.state == WqeState.DONE) {
                // A local operation (BIND_MW, LOCAL_INV) executed when it started and puts nothing on the
                // wire; a go-back-N from an earlier PSN passes over it (rxe_req.c: local ops are done once).
                next++;
                work++;
                continue;
            }
            if (qp.type == QpType.RC && window.isFull()) {
                break; // the window is full: an ACK reschedules us
            }
            work += sendPackets(wqe, nowNanos, Rnic.PACKETS_PER_TURN - work);
        }
        if (work >= Rnic.PACKETS_PER_TURN) {
            rnic.schedule(qp);
        }
        return work;
    }

    /**
     * Begins a WQE: fence and credits, local checks, PSNs. A local operation (LOCAL_INV, BIND_MW) executes
     * here. Returns false when the WQE must wait.
     */
    private boolean start(SendWqe wqe) {
        WrOpcode opcode = wqe.opcode;
        if ((wqe.flags & SendFlag.FENCE.bit()) != 0 && window.readAtomicInFlight > 0) {
            return false;
        }
        if (!opcode.isAllowedOn(qp.type) || !DeviceCapabilitiesEx.executes(rnic.model, opcode)) {
            // Posted, as libibverbs and its providers post it; rxe_req.c next_opcode finds no opcode for
            // this QP type (IBTA table 38): the WQE completes LOC_QP_OP_ERR and the QP goes to ERR.
            wqe.started = true;
            failInRequester(wqe, WcStatus.LOC_QP_OP_ERR);
            return true;
        }
        if (wqe.takesReadAtomicCredit() && window.readAtomicInFlight >= qp.maxRdAtomic) {
            return false;
        }
        wqe.started = true;
        if (opcode == WrOpcode.LOCAL_INV) {
            // rxe: a failed local invalidate completes with a local QP operation error.
            MemoryRegionTable.Check check = rnic.memoryRegions.invalidate(wqe.invalidateRkey, qp.pd);
            if (check == MemoryRegionTable.Check.OK) {
                wqe.state = WqeState.DONE;
            } else {
                failInRequester(wqe, WcStatus.LOC_QP_OP_ERR);
            }
            return true;
        }
        if (opcode == WrOpcode.BIND_MW) {
            // rxe_req.c rxe_do_local_ops: a failed bind completes IB_WC_MW_BIND_ERR (and the QP goes to ERR).
            WindowBind bind = wqe.bind;
            String problem = rnic.memoryRegions.bind(bind.window, bind.windowRkey, bind.newRkey, bind.regionLkey,
                    bind.address, bind.length, bind.access, qp, qp.pd);
            if (problem == null) {
                wqe.state = WqeState.DONE;
            } else {
                failInRequester(wqe, WcStatus.MW_BIND_ERR);
            }
            return true;
        }
        if (!wqe.inline) {
            int access = wqe.needsResponseData() ? AccessFlag.LOCAL_WRITE.bit() : 0;
            MemoryRegionTable.Check check = SgeCopy.checkAll(rnic.memoryRegions, qp.pd, wqe.sges, wqe.numSge,
                    access);
            if (check != MemoryRegionTable.Check.OK && access == 0) {
                failInRequester(wqe, localKeyStatus(check));
                return true;
            }
            if (check != MemoryRegionTable.Check.OK) {
                // The buffer a READ or atomic response lands in: rxe checks it in the completer (rxe_comp.c
                // do_read/do_atomic), which reports LOC_PROT_ERR in order, on every kernel.
                fail(wqe, WcStatus.LOC_PROT_ERR);
                return true;
            }
        }
        int mtu = qp.mtu();
        if (qp.type == QpType.UD && wqe.length > mtu) {
            // IBTA C10-93.1.1: a UD message longer than the MTU emits no packet and generates no
            // error; rxe completes it as a successful send (rxe_req.c, "fake a successful UD send").
            wqe.state = WqeState.DONE;
            return true;
        }
        // A FLUSH is one packet whatever its length: the RETH names the range, nothing is carried.
        wqe.packets = opcode.isAtomic() || opcode == WrOpcode.FLUSH ? 1 : Position.packetCount(wqe.length, mtu);
        wqe.firstPsn = window.nextPsn;
        wqe.lastPsn = Psn.add(window.nextPsn, wqe.packets - 1);
        wqe.state = WqeState.PENDING;
        packetIndex = 0;
        if (wqe.takesReadAtomicCredit()) {
            window.readAtomicInFlight++;
        }
        return true;
    }

    /**
     * IBTA 10.6.3.2: a bad lkey is a local protection error. Kernel 6.1's rxe tells a key it cannot look up
     * from a range it fails ({@link Quirk#UNKNOWN_SEND_LKEY_IS_LOC_QP_OP_ERR}) in the payload it gathers.
     */
    private WcStatus localKeyStatus(MemoryRegionTable.Check check) {
        if (check != MemoryRegionTable.Check.OUT_OF_BOUNDS
                && rnic.model.has(Quirk.UNKNOWN_SEND_LKEY_IS_LOC_QP_OP_ERR)) {
            return WcStatus.LOC_QP_OP_ERR; // rxe_mr.c copy_data: lookup_mr fails -> -EINVAL -> rxe_requester
        }
        return WcStatus.LOC_PROT_ERR;
    }

    /**
     * Whether a packet's payload may stay in the sender's memory until the frame is delivered
     * ({@link Rnic#payloadByReference}): not over IPv6, whose UDP checksum covers the payload, and not below
     * {@link #BY_REFERENCE_MIN_PAYLOAD} bytes.
     */
    private static boolean mayGoByReference(NetworkPath path, int payload) {
        return payload >= BY_REFERENCE_MIN_PAYLOAD && !path.ipv6;
    }

    /**
     * The requester fails a WQE itself. By default the completer reports it with its status in order and
     * then moves the QP to ERR (IBTA 10.8.3); rxe 6.10+ moves the QP to ERR at once, which flushes it and
     * everything not yet completed ({@link Quirk#REQUESTER_ERRORS_FLUSH_THE_SEND_QUEUE}).
     */
    private void failInRequester(SendWqe wqe, WcStatus status) {
        fail(wqe, status);
        if (rnic.model.has(Quirk.REQUESTER_ERRORS_FLUSH_THE_SEND_QUEUE)) {
            qp.enterError(); // rxe_req.c rxe_requester err: rxe_qp_error(qp); rxe_comp.c: flush_send_queue
        }
    }

    private void fail(SendWqe wqe, WcStatus status) {
        wqe.state = WqeState.ERROR;
        wqe.status = status;
    }

    /**
     * Sends the WQE's next packet, or — where its payload may go by reference — a train of up to {@code most} of
     * its packets from a MIDDLE one on at once ({@link #trainLength}).
     *
     * @return the packets sent (0 if the WQE failed)
     */
    private int sendPackets(SendWqe wqe, long nowNanos, int most) {
        int psn = window.nextPsn;
        WrOpcode wr = wqe.opcode;
        int mtu = qp.mtu();
        Opcode opcode;
        int payload;
        long offset;
        boolean last;
        Opcode message = Opcode.of(transport, ONLY_OPERATION[wr.ordinal()]);
        if (wr == WrOpcode.RDMA_READ) {
            opcode = message;
            offset = (long) packetIndex * mtu;
            payload = 0;
            last = true;
        } else if (wr.isAtomic() || wr == WrOpcode.FLUSH) {
            opcode = message;
            offset = 0;
            payload = 0;
            last = true;
        } else {
            Position position = Position.of(packetIndex, wqe.packets);
            opcode = message.at(position);
            offset = (long) packetIndex * mtu;
            payload = (int) Math.min(mtu, wqe.length - offset);
            last = position.endsMessage();
        }
        boolean solicited = last && (wqe.flags & SendFlag.SOLICITED.bit()) != 0 && (wr.isSend() || wr.hasImmediate());
        NetworkPath path = qp.type == QpType.UD ? wqe.udPath : qp.path;
        int destQp = qp.type == QpType.UD ? wqe.remoteQpn : qp.destQpn;
        PacketWriter frame = rnic.beginFrame(path, qp.sourcePort).bth(opcode, destQp, psn)
                .solicitedEvent(solicited);
        writeExtensionHeaders(frame, opcode, wqe, offset);
        byte[] b = rnic.tx();
        int payloadAt = frame.payloadOffset();
        PayloadReference byReference = null;
        int packets = 1;
        if (payload > 0) {
            int copied = SgeCopy.SPLIT;
            if (wqe.inline) {
                copied = copyInline(wqe, offset, b, payloadAt, payload);
            } else if (mayGoByReference(path, payload)) {
                byReference = rnic.payloadByReference();
                if (byReference != null && opcode.position() == Position.MIDDLE) {
                    packets = trainLength(wqe, most, payload);
                }
                copied = byReference == null ? SgeCopy.SPLIT : SgeCopy.reference(rnic.memoryRegions, qp.pd, wqe.sges,
                        wqe.numSge, offset, packets * payload, byReference, payloadAt);
                if (copied != SgeCopy.OK && packets > 1) {
                    // The train's bytes span SGEs, or part of them cannot be read: this packet alone decides, as
                    // when packets go one by one (a reregistered region may have shrunk under the message).
                    packets = 1;
                    copied = SgeCopy.reference(rnic.memoryRegions, qp.pd, wqe.sges, wqe.numSge,
                            offset, payload, byReference, payloadAt);
                }
            }
            if (copied == SgeCopy.SPLIT) {
                byReference = null;
                copied = SgeCopy.gather(rnic.memoryRegions, qp.pd, wqe.sges,
                        wqe.numSge, offset, b, payloadAt, payload);
            }
            if (copied != SgeCopy.OK) {
                // The region went away under a message in progress, or its memory could not be read:
                // rxe_req.c finish_packet completes a copy that fails (-EFAULT) with LOC_PROT_ERR.
                if (copied == SgeCopy.FAULT) {
                    rnic.count(RnicCounter.MEMORY_ACCESS_ERRORS);
                }
                // SGEs that run out before the WQE's length (a length the provider set wrong) are copy_data's
                // -ENOSPC, which kernel 6.1's rxe_requester completes LOC_QP_OP_ERR (Quirk doc).
                failInRequester(wqe, copied == SgeCopy.TOO_LONG && rnic.model.has(Quirk.UNKNOWN_SEND_LKEY_IS_LOC_QP_OP_ERR)
                        ? WcStatus.LOC_QP_OP_ERR : WcStatus.LOC_PROT_ERR);
                qp.completer.retire();
                return 0;
            }
        }
        boolean endsMessage = last || packets > 1 && packetIndex + packets == wqe.packets;
        boolean ackReq = false;
        if (qp.type == QpType.RC) {
            packetsSinceAckReq += packets;
            ackReq = endsMessage || packetsSinceAckReq >= MAX_PACKETS_PER_ACK;
            if (ackReq) {
                packetsSinceAckReq = 0;
            }
        }
        frame.ackReq(ackReq && packets == 1);
        if (packets > 1) {
            byReference.train(packets, payload, rnic.ipv4IdentificationStep(), ackReq, endsMessage);
        }
        if (byReference == null) {
            rnic.transmit(frame.finish(payload));
        } else {
            rnic.transmit(frame.finish(payload), byReference);
        }
        if (Psn.compare(psn, freshPsn) < 0) {
            rnic.count(RnicCounter.RETRANSMITTED_PACKETS, Math.min(packets, Psn.distance(psn, freshPsn)));
        }
        if (wr == WrOpcode.RDMA_READ) {
            window.nextPsn = Psn.next(wqe.lastPsn);
            packetIndex = wqe.packets;
        } else {
            window.nextPsn = Psn.add(psn, packets);
            packetIndex += packets;
        }
        if (Psn.compare(window.nextPsn, freshPsn) > 0) {
            freshPsn = window.nextPsn;
        }
        if (qp.type == QpType.RC) {
            qp.completer.armAckTimer(nowNanos); // IBTA 9.7.6.1.3: every request expects a response in time
        }
        if (packetIndex >= wqe.packets) {
            next++;
            packetIndex = 0;
            if (qp.type != QpType.RC) {
                wqe.state = WqeState.DONE; // unreliable: complete once sent (rxe: wqe_state_done)
                qp.completer.retire();
            }
        }
        return packets;
    }

    /**
     * How many packets from the current MIDDLE one go as one train ({@link PayloadReference#train}): at most
     * {@code most}, the MIDDLE packets the message has left — and its LAST when that is as long as they are and
     * plain (no immediate, no invalidate, not solicited: the same headers) — what the RC window takes, and up to
     * the next packet that must ask for an ACK: everything the requester would have sent one by one in this turn,
     * with the same headers but the PSN, AckReq, the IPv4 Identification and the LAST's opcode.
     */
    private int trainLength(SendWqe wqe, int most, int packetPayload) {
        boolean plainFullLast = (wqe.opcode == WrOpcode.RDMA_WRITE || wqe.opcode == WrOpcode.SEND)
                && (wqe.flags & SendFlag.SOLICITED.bit()) == 0 && wqe.length % packetPayload == 0;
        int packets = Math.min(most, wqe.packets - 1 - packetIndex + (plainFullLast ? 1 : 0));
        if (qp.type == QpType.RC) {
            packets = Math.min(packets, MAX_PACKETS_PER_ACK - packetsSinceAckReq);
            packets = Math.min(packets, window.room());
        }
        return Math.max(packets, 1);
    }

    private void writeExtensionHeaders(PacketWriter frame, Opcode opcode, SendWqe wqe, long offset) {
        if (opcode.has(HeaderType.DETH)) {
            // IBTA 10.2.5 (Q_Keys; its compliance number is not quoted in any public source we could check):
            // a Q_Key with the high bit set means "use the QP's own Q_Key".
            boolean useQpsQkey = wqe.remoteQkey < 0 && !rnic.model.has(Quirk.WR_QKEY_HIGH_BIT_SENT_AS_GIVEN);
            frame.deth(useQpsQkey ? qp.qkey : wqe.remoteQkey, qp.qpn & 0xFFFFFF);
        }
        if (opcode.has(HeaderType.FETH)) {
            // rxe_req.c rxe_init_roce_hdrs: feth_init(pkt, wr.flush.type, wr.flush.level); the RETH below carries
            // wr.flush.rkey, the WQE's iova and dma.resid, as for a WRITE.
            frame.feth(wqe.feth >>> 4 & 0x3, wqe.feth & 0xF);
        }
        if (opcode.has(HeaderType.RETH)) {
            frame.reth(wqe.remoteAddr + offset, wqe.rkey, (int) (wqe.length - offset));
        }
        if (opcode.has(HeaderType.ATOMIC_ETH)) {
            boolean swap = wqe.opcode == WrOpcode.ATOMIC_CMP_AND_SWP;
            frame.atomicEth(wqe.remoteAddr, wqe.rkey, swap ? wqe.swap : wqe.compareAdd, swap ? wqe.compareAdd : 0);
        }
        if (opcode.has(HeaderType.IMM_DT)) {
            frame.immediate(wqe.immData);
        }
        if (opcode.has(HeaderType.IETH)) {
            frame.invalidate(wqe.invalidateRkey);
        }
    }

    private static int copyInline(SendWqe wqe, long offset, byte[] dst, int dstOffset, int length) {
        System.arraycopy(wqe.inlineData, (int) offset, dst, dstOffset, length);
        return SgeCopy.OK;
    }
}
