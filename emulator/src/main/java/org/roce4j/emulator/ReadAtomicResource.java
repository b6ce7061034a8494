package org.roce4j.emulator;

/**
 * What a responder remembers of an RDMA READ or atomic it executed, so that a duplicate request
 * (a retry after lost responses) is answered again without executing twice (IBTA 9.7.5.1.5,
 * C9-107; rxe {@code struct resp_res}). There are {@code max_dest_rd_atomic} of them, reused in turn.
 */
final class ReadAtomicResource {
    boolean used;
    boolean atomic;
    int firstPsn;
    int lastPsn;
    int packets;
    long va;
    long length;
    int rkey;
    long originalValue;
}
