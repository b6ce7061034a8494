package org.roce4j.tools.analyze;

import org.roce4j.wire.OperationKind;
import org.roce4j.wire.Psn;

/**
 * A request message the requester sent and has not yet seen acknowledged: its PSN range, when its
 * first packet first went out, and for a READ the RETH it asked with (to check a retry's RETH).
 */
final class OutstandingMessage {
    final OperationKind kind;
    final long firstSentNanos;
    int firstPsn;
    long readVirtualAddress;
    long readLength;
    /** False while the capture has shown a MIDDLE or LAST of this message but not its FIRST (lost before the capture point). */
    boolean sawStart = true;
    /** One past the last PSN; -1 while the message's last packet has not been seen. */
    int endPsn = -1;
    /** The RETH length of a WRITE or READ, or for a SEND the payload of its LAST/ONLY packet (-1 until seen). */
    long bytes;
    /** READ: response packets received in order so far. */
    int responsePackets;

    OutstandingMessage(OperationKind kind, int firstPsn, long firstSentNanos, long readVirtualAddress, long readLength) {
        this.kind = kind;
        this.firstPsn = firstPsn;
        this.firstSentNanos = firstSentNanos;
        this.readVirtualAddress = readVirtualAddress;
        this.readLength = readLength;
    }

    /** The FIRST packet arrives late (resent): the message really starts there, with this RETH. */
    void startsAt(int psn, long virtualAddress, long length) {
        firstPsn = psn;
        readVirtualAddress = virtualAddress;
        readLength = length;
        if (kind != OperationKind.SEND) {
            bytes = length;
        }
        sawStart = true;
    }

    /**
     * The message's length, counted as goodput once acknowledged: a WRITE's or READ's RETH length; a
     * SEND's from its PSNs, every packet but the last carrying one PMTU (IBTA 9.4.1), so packets
     * lost before the capture point count too.
     */
    long length(MtuEstimate mtu) {
        if (kind != OperationKind.SEND) {
            return bytes;
        }
        long packets = Psn.distance(firstPsn, endPsn);
        return (packets - 1) * mtu.bytes() + Math.max(0, bytes);
    }

    boolean complete() {
        return endPsn >= 0;
    }

    int lastPsn() {
        return Psn.add(endPsn, -1);
    }

    boolean contains(int psn) {
        return !Psn.isBefore(psn, firstPsn) && (endPsn < 0 || Psn.isBefore(psn, endPsn));
    }

    /** READ and atomics wait for a response of their own, so a later response means theirs was lost. */
    boolean awaitsOwnResponse() {
        return kind == OperationKind.RDMA_READ_REQUEST || kind == OperationKind.ATOMIC;
    }
}
