package org.roce4j.emulator.transport;

import org.roce4j.emulator.node.Rnic;
import org.roce4j.emulator.verbs.EmulatedQp;
import org.roce4j.emulator.verbs.MemoryRegionTable;
import org.roce4j.verbs.AccessFlag;
import org.roce4j.wire.OperationKind;
import org.roce4j.wire.PacketInfo;
import org.roce4j.wire.Psn;

/**
 * An RC responder's answer to a request behind the expected PSN, rxe_resp.c
 * {@code duplicate_request}: IBTA 9.7.5.1.5 (C9-105, C9-107) — re-ACK old SENDs and WRITEs, answer
 * an atomic again from the saved result, replay a READ (or the part asked for) from its saved
 * resource; nothing executes twice.
 */
final class DuplicateRequests {
    private final EmulatedQp qp;
    private final Rnic rnic;
    private final Responder responder;
    private final ResponsePackets out;
    private final ReadReplies reads;
    private final ReadAtomicResources resources;

    DuplicateRequests(EmulatedQp qp, Responder responder, ResponsePackets out, ReadReplies reads,
                      ReadAtomicResources resources) {
        this.qp = qp;
        this.rnic = qp.rnic;
        this.responder = responder;
        this.out = out;
        this.reads = reads;
        this.resources = resources;
    }

    void answer(PacketInfo p) {
        OperationKind kind = p.opcode().kind();
        int psn = p.psn();
        int msn = responder.msn;
        if (kind == OperationKind.SEND || kind == OperationKind.RDMA_WRITE) {
            out.sendAcknowledge(msn, ResponsePackets.ACK_UNLIMITED, Psn.add(responder.expectedPsn, -1));
            return;
        }
        boolean atomicWrite = kind == OperationKind.ATOMIC_WRITE;
        boolean flush = kind == OperationKind.FLUSH;
        ReadAtomicResource res = resources.find(psn, kind == OperationKind.ATOMIC || atomicWrite || flush);
        if (res == null || res.atomicWrite != atomicWrite || res.flush != flush) {
            return; // rxe: class D, the request is dropped
        }
        if (atomicWrite || flush) {
            // rxe_resp.c duplicate_request: a replayed ATOMIC WRITE or FLUSH (oA19-14, oA19-15) is answered again.
            out.sendReadResponseAcknowledge(msn, psn);
            return;
        }
        if (res.atomic) {
            out.sendAtomicAcknowledge(msn, psn, res.originalValue);
            return;
        }
        long va = p.rethVirtualAddress() + rnic.memoryRegions.zeroBasedOffset(p.rethRkey()); // as Responder#addressOf
        long length = Integer.toUnsignedLong(p.rethDmaLength());
        if (p.rethRkey() != res.rkey || va < res.va || va + length > res.va + res.length) {
            return;
        }
        if (length > 0 && rnic.memoryRegions.checkRemote(res.rkey, qp.pd, qp, AccessFlag.REMOTE_READ.bit(), va, length)
                != MemoryRegionTable.Check.OK) {
            return;
        }
        out.flushPendingAck(msn);
        reads.replay(res, psn, va, length);
    }
}
