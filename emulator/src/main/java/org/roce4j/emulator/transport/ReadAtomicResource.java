package org.roce4j.emulator.transport;

/**
 * What a responder remembers of an RDMA READ or atomic it executed, so that a duplicate request
 * (a retry after lost responses) is answered again without executing twice (IBTA 9.7.5.1.5,
 * C9-107; rxe {@code struct resp_res}). There are {@code max_dest_rd_atomic} of them, reused in turn.
 *
 * <p>A READ's responses leave a few at a time ({@link ReadReplies}); the cursor fields say which
 * response goes next, as rxe's {@code res->cur_psn} and {@code res->read.va/resid}. A duplicate
 * READ moves the cursor; the fields above it keep describing the READ as first executed.
 */
final class ReadAtomicResource {
    boolean used;
    boolean atomic;
    /** An ATOMIC WRITE (with {@link #atomic} set: one PSN, replayed without executing again). */
    boolean atomicWrite;
    /** A FLUSH (with {@link #atomic} set: one PSN, answered again without executing again). */
    boolean flush;
    int firstPsn;
    int lastPsn;
    int packets;
    long va;
    long length;
    int rkey;
    long originalValue;

    // ---- the READ's cursor -------------------------------------------------------------------
    /** Index (0 = firstPsn) of the next response to send; {@link #packets} when all are sent. */
    int nextIndex;
    /** Where that response's payload starts, and the bytes from there to the end of what is asked. */
    long nextVa;
    long remaining;
    /** The MSN every AETH of these responses carries (C9-148: the READ counted when it executed). */
    int msn;

    boolean hasMoreResponses() {
        return nextIndex < packets;
    }
}
