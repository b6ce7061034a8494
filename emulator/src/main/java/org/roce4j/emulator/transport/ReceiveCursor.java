package org.roce4j.emulator.transport;

/**
 * The receive WQE a responder is filling, like rxe's {@code qp->resp.wqe} with its DMA state: the
 * SGEs and how many bytes the message has placed so far.
 */
public final class ReceiveCursor {
    long wrId;
    int numSge;
    final long[] sgeAddress;
    final int[] sgeLength;
    final int[] sgeLkey;
    long written;
    long capacity;
    boolean active;

    ReceiveCursor(int maxSge) {
        sgeAddress = new long[Math.max(maxSge, 1)];
        sgeLength = new int[Math.max(maxSge, 1)];
        sgeLkey = new int[Math.max(maxSge, 1)];
    }

    void load(long id, int count, long[] addresses, int[] lengths, int[] lkeys, int base) {
        wrId = id;
        numSge = count;
        capacity = 0;
        for (int i = 0; i < count; i++) {
            sgeAddress[i] = addresses[base + i];
            sgeLength[i] = lengths[base + i];
            sgeLkey[i] = lkeys[base + i];
            capacity += Integer.toUnsignedLong(lengths[base + i]);
        }
        written = 0;
        active = true;
    }
}
