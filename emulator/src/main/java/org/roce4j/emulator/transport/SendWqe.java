package org.roce4j.emulator.transport;

import org.roce4j.emulator.node.NetworkPath;
import org.roce4j.verbs.WcStatus;
import org.roce4j.verbs.WrOpcode;

/**
 * One slot of a send queue: what {@code ibv_post_send} copied out of the work request (its SGEs
 * live in the queue's flat arrays), and the requester's and completer's bookkeeping, like rxe's
 * {@code struct rxe_send_wqe}.
 */
public final class SendWqe {
    /** Posted, no packet sent yet. */
    static final byte POSTED = 0;
    /** Some or all packets sent, not yet acknowledged (RC). */
    static final byte PENDING = 1;
    /** Finished: acknowledged (RC), sent (UC/UD), executed (local); waits to retire in order. */
    static final byte DONE = 2;
    /** Failed with {@link #status}; the QP goes to error when it retires. */
    static final byte FAILED = 3;

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
    NetworkPath udPath;
    int remoteQpn;
    int remoteQkey;

    byte state;
    /** The requester started it (PSNs assigned, read/atomic credit taken). */
    boolean started;
    int firstPsn;
    int lastPsn;
    /** Packets of the message (READ: response packets expected). */
    int packets;
    WcStatus status;

    boolean needsResponseData() {
        return opcode == WrOpcode.RDMA_READ || opcode.isAtomic();
    }
}
