package org.roce4j.emulator.transport;

import java.util.Arrays;
import org.roce4j.emulator.verbs.MemoryRegionTable;
import org.roce4j.wire.PacketInfo;

/**
 * The receive WQE a responder is filling, like rxe's {@code qp->resp.wqe} with its DMA state: the
 * SGEs and how many bytes the message has placed so far.
 */
public final class ReceiveCursor {
    /** A UD receive starts with a GRH of this many bytes (IBTA 11.4.1.1). */
    static final int GRH_LENGTH = 40;
    /** RFC 791: where the header checksum sits in an IPv4 header. */
    private static final int IPV4_CHECKSUM_OFFSET = 10;

    private final byte[] grh = new byte[GRH_LENGTH];
    long wrId;
    int numSge;
    /** The WQE's SGEs ({@link SgeCopy#put}). */
    final long[] sges;
    long written;
    long capacity;
    boolean active;

    ReceiveCursor(int maxSge) {
        sges = new long[Math.max(maxSge, 1) * SgeCopy.LONGS_PER_SGE];
    }

    /** Takes the WQE {@code id} with {@code count} SGEs from {@code from}, starting at SGE {@code base}. */
    void load(long id, int count, long[] from, int base) {
        wrId = id;
        numSge = count;
        System.arraycopy(from, base * SgeCopy.LONGS_PER_SGE, sges, 0, count * SgeCopy.LONGS_PER_SGE);
        capacity = 0;
        for (int i = 0; i < count; i++) {
            capacity += SgeCopy.length(sges, i);
        }
        written = 0;
        active = true;
    }

    /**
     * Places the GRH a UD receive starts with (IBTA 11.4.1.1): over IPv6 the IPv6 header; over
     * IPv4, as rxe (rxe_resp.c: send_data_in, roce4grh) and hardware place it, 20 zero bytes and
     * then the IPv4 header. Returns {@link SgeCopy}'s result.
     */
    int placeGrh(PacketInfo p, MemoryRegionTable regions, Object pd, boolean ipv4ChecksumComputed) {
        int ipLength = p.ipHeaderLength();
        Arrays.fill(grh, 0, GRH_LENGTH - ipLength, (byte) 0);
        System.arraycopy(p.buffer(), p.ipOffset(), grh, GRH_LENGTH - ipLength, ipLength);
        if (!ipv4ChecksumComputed) {
            grh[GRH_LENGTH - ipLength + IPV4_CHECKSUM_OFFSET] = 0; // the field as rxe leaves it: never filled in
            grh[GRH_LENGTH - ipLength + IPV4_CHECKSUM_OFFSET + 1] = 0;
        }
        int result = SgeCopy.scatter(regions, pd, sges, numSge, 0, grh, 0, GRH_LENGTH);
        if (result == SgeCopy.OK) {
            written = GRH_LENGTH;
        }
        return result;
    }
}
