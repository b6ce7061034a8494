package org.roce4j.examples;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * One I/O request of the block store, as the client sends it (32 bytes, big-endian):
 * {@code op (4) | tag (4) | lba (8) | length (4) | rkey (4) | address (8)}. The last three are the
 * grant: the client's buffer of exactly {@code length} bytes at {@code address}, reachable under
 * {@code rkey}, a type 2 memory window's key bound for this request only.
 *
 * @param op      what the server does: RDMA WRITE into the window ({@link Op#READ}) or RDMA READ from it ({@link Op#WRITE})
 * @param tag     the client's request slot, echoed in the response
 * @param lba     the first block of the store
 * @param length  the bytes moved (a whole number of blocks)
 * @param rkey    the window's rkey
 * @param address the window's first byte
 */
public record BlockRequest(Op op, int tag, long lba, int length, int rkey, long address) {
    /** The bytes of a request on the wire. */
    static final int BYTES = 32;
    /** The bytes of a response: {@code tag (4) | status (4)}. */
    static final int RESPONSE_BYTES = 8;
    /** A response's status: the I/O was done. */
    static final int STATUS_OK = 0;
    /** A response's status: the blocks lie outside the store (nothing was moved). */
    static final int STATUS_OUT_OF_RANGE = 1;

    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    /** The direction of an I/O, seen from the client (as NVMe's read and write commands). */
    public enum Op {
        /** Blocks go from the store into the client's buffer: the window grants REMOTE_WRITE only. */
        READ,
        /** Blocks go from the client's buffer into the store: the window grants REMOTE_READ only. */
        WRITE
    }

    /**
     * Writes this request at {@code offset} of {@code memory}.
     *
     * @param memory where
     * @param offset at which byte
     */
    void encode(MemorySegment memory, long offset) {
        memory.set(INT, offset, op.ordinal() + 1);
        memory.set(INT, offset + 4, tag);
        memory.set(LONG, offset + 8, lba);
        memory.set(INT, offset + 16, length);
        memory.set(INT, offset + 20, rkey);
        memory.set(LONG, offset + 24, address);
    }

    /**
     * {@return the request at {@code offset} of {@code memory}, or null if its op is unknown}
     *
     * @param memory where it was received
     * @param offset at which byte
     */
    static BlockRequest decode(MemorySegment memory, long offset) {
        int op = memory.get(INT, offset);
        if (op < 1 || op > Op.values().length) {
            return null;
        }
        return new BlockRequest(Op.values()[op - 1], memory.get(INT, offset + 4), memory.get(LONG, offset + 8),
                memory.get(INT, offset + 16), memory.get(INT, offset + 20), memory.get(LONG, offset + 24));
    }

    /** Writes a response (tag, status) at {@code offset} of {@code memory}. */
    static void encodeResponse(MemorySegment memory, long offset, int tag, int status) {
        memory.set(INT, offset, tag);
        memory.set(INT, offset + 4, status);
    }

    /** {@return the tag of the response at {@code offset} of {@code memory}} */
    static int responseTag(MemorySegment memory, long offset) {
        return memory.get(INT, offset);
    }

    /** {@return the status of the response at {@code offset} of {@code memory}} */
    static int responseStatus(MemorySegment memory, long offset) {
        return memory.get(INT, offset + 4);
    }
}
