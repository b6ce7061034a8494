package org.roce4j.tools;

import static java.nio.charset.StandardCharsets.US_ASCII;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * What rping (rdma-core librdmacm/examples/rping.c) puts in its buffers: the ping text of
 * {@code rping_test_client} and the 16-byte {@code struct rping_rdma_info} its SENDs carry.
 */
final class RpingData {
    /** {@code RPING_MSG_FMT}. */
    static final String MESSAGE_FORMAT = "rdma-ping-%d: ";
    /** {@code RPING_BUFSIZE}: -S must stay below it. */
    static final int MAX_BUFSIZE = 64 * 1024;
    /**
     * {@code RPING_MIN_BUFSIZE}: {@code sizeof(stringify(INT_MAX)) + sizeof(RPING_MSG_FMT)} — the
     * 10 characters of 0x7fffffff and the format's 14, each with its NUL.
     */
    static final int MIN_BUFSIZE = "0x7fffffff".length() + 1 + MESSAGE_FORMAT.length() + 1;
    /** {@code sizeof(struct rping_rdma_info)}: buf (be64), rkey (be32), size (be32). */
    static final int INFO_BYTES = 16;
    /** The pattern runs over the ASCII letters and what lies between them: 'A' (65) to 'z' (122). */
    private static final int FIRST = 65;
    private static final int LAST = 122;

    private static final ValueLayout.OfLong BE64 = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfInt BE32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    private RpingData() {
    }

    /** {@code struct rping_rdma_info}, in host order. */
    record Info(long buf, int rkey, int size) {
        /** rping_format_send: every field in network order. */
        void writeTo(MemorySegment segment) {
            segment.set(BE64, 0, buf);
            segment.set(BE32, 8, rkey);
            segment.set(BE32, 12, size);
        }

        /** server_recv: be64toh / be32toh. */
        static Info readFrom(MemorySegment segment) {
            return new Info(segment.get(BE64, 0), segment.get(BE32, 8), segment.get(BE32, 12));
        }
    }

    /**
     * {@return the start character of the ping after one starting at {@code start}: rping's
     * {@code start++}, back to 'A' after 'z'}
     */
    static int nextStart(int start) {
        return start + 1 > LAST ? FIRST : start + 1;
    }

    /** The start character of ping 0. */
    static int firstStart() {
        return FIRST;
    }

    /**
     * Writes ping {@code ping}'s text as rping_test_client does: {@code snprintf(buf, size,
     * RPING_MSG_FMT, ping)}, then characters from {@code start} upward (wrapping after 'z') up to the
     * end, whose last byte is NUL.
     */
    static void fill(MemorySegment buffer, int size, int ping, int start) {
        byte[] prefix = String.format(MESSAGE_FORMAT, ping).getBytes(US_ASCII);
        int cc = Math.min(prefix.length, size - 1); // snprintf writes at most size - 1 characters and a NUL
        MemorySegment.copy(prefix, 0, buffer, ValueLayout.JAVA_BYTE, 0, cc);
        int c = start;
        for (int i = cc; i < size; i++) {
            buffer.set(ValueLayout.JAVA_BYTE, i, (byte) c);
            c = c + 1 > LAST ? FIRST : c + 1;
        }
        buffer.set(ValueLayout.JAVA_BYTE, size - 1, (byte) 0);
    }

    /** {@return the C string at the start of {@code buffer} (up to its first NUL), as printf's %s prints it} */
    static String cString(MemorySegment buffer) {
        long length = 0;
        while (length < buffer.byteSize() && buffer.get(ValueLayout.JAVA_BYTE, length) != 0) {
            length++;
        }
        return new String(buffer.asSlice(0, length).toArray(ValueLayout.JAVA_BYTE), US_ASCII);
    }
}
