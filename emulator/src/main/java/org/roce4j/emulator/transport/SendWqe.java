package org.roce4j.emulator.transport;

import org.roce4j.emulator.node.NetworkPath;
import org.roce4j.verbs.WcStatus;
import org.roce4j.verbs.WrOpcode;

/**
 * One slot of a send queue: what {@code ibv_post_send} copied out of the work request, its SGEs and inline
 * data with it, and the requester's and completer's bookkeeping, like rxe's {@code struct rxe_send_wqe}. A WQE's
 * own arrays are laid out beside it, where the queue's ring-wide arrays put 15 cold slots' SGEs and inline bytes
 * between a QP's hot objects (bench/RESULTS.md, "hot objects first").
 */
public final class SendWqe {
    /** The WR's SGEs in {@link SgeCopy}'s layout, room for max_send_sge: the WQE's own, as rxe's {@code dma.sge[]}. */
    final long[] sges;
    /** The INLINE data, or an ATOMIC WRITE's 8 bytes: made the first time this slot carries any. */
    byte[] inlineData;
    public long wrId;
    public WrOpcode opcode;
    public int flags;
    int numSge;
    public long length;
    boolean inline;
    int immData;
    int invalidateRkey;
    long remoteAddr;
    int rkey;
    long compareAdd;
    long swap;
    /** FLUSH: its FETH word, the selectivity level in bits 5-4 and the placement type in bits 3-0. */
    int feth;
    NetworkPath udPath;
    int remoteQpn;
    int remoteQkey;
    /** BIND_MW: the window and what it binds; null until the slot's first BIND_MW. */
    WindowBind bind;

    WqeState state;
    /** The requester started it (PSNs assigned, read/atomic credit taken). */
    boolean started;
    int firstPsn;
    int lastPsn;
    /** Packets of the message (READ: response packets expected). */
    int packets;
    WcStatus status;

    /** A slot's WQE, with room for {@code sgeStride} SGEs. */
    SendWqe(int sgeStride) {
        this.sges = new long[sgeStride * SgeCopy.LONGS_PER_SGE];
    }

    boolean needsResponseData() {
        return opcode == WrOpcode.RDMA_READ || opcode.isAtomic();
    }

    /**
     * READ, the atomics and ATOMIC WRITE: each is answered by a response of its own (an ACK never implies
     * it, IBTA 9.7.5.1.5) and holds one of the responder's {@code max_dest_rd_atomic} resources while
     * outstanding, so it takes one of the requester's {@code max_rd_atomic} credits (IBTA 1.5 counts ATOMIC
     * WRITE with the RDMA READs and atomics; rxe_resp.c rxe_prepare_res gives it a resource).
     */
    boolean takesReadAtomicCredit() {
        return needsResponseData() || opcode == WrOpcode.ATOMIC_WRITE;
    }
}
