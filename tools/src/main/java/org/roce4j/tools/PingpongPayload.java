package org.roce4j.tools;

import java.io.PrintWriter;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.BitSet;

/**
 * What a pingpong message holds and the {@code -c} check of it, on both sides.
 *
 * <p>The rdma-core examples send from and receive into one buffer, filled with 0x7b (0 for
 * ibv_srq_pingpong) by pp_init_ctx; with {@code -c} the client writes {@code i / page_size %
 * sizeof(char)} — that is 0 — at the start of every page before its first send, and the server
 * sends again only after a receive, from the same buffer: whoever the peers are, every message of
 * a run is the fill with 0 at each page start. The C server checks only each page's first byte,
 * and only once at the end (rc_pingpong.c: {@code printf("invalid data in page %d\n", ...)}, then
 * exit 0); the C client checks nothing. roce4j checks every byte of every received message on
 * both sides and exits 1 (see {@link #report}).
 *
 * <p>The check is race-free although receives land in the buffer it reads: a peer sends its next
 * message only after it has received ours, and we send ours only after this check (srq's QPs may
 * overlap, but every correct message has the same bytes).
 */
final class PingpongPayload {
    private final int size;
    private final long offset;
    private final byte fill;
    private final BitSet invalidPages = new BitSet();
    private int checked;
    private int invalidMessages;
    private int firstInvalid;

    /** {@code offset}: where the message starts in the buffer (after the GRH for UD). */
    PingpongPayload(Pingpong.Service service, int size, long offset) {
        this.size = size;
        this.offset = offset;
        this.fill = service == Pingpong.Service.SRQ ? (byte) 0 : (byte) 0x7b;
    }

    /** pp_init_ctx's memset. */
    void fill(MemorySegment buffer) {
        buffer.fill(fill);
    }

    /** The client's {@code -c} marks: 0 at each page start ({@code i / page_size % sizeof(char)}). */
    void markPages(MemorySegment buffer) {
        for (int i = 0; i < size; i += Pingpong.PAGE_SIZE) {
            buffer.set(ValueLayout.JAVA_BYTE, offset + i, expected(i));
        }
    }

    private byte expected(int index) {
        return index % Pingpong.PAGE_SIZE == 0 ? 0 : fill;
    }

    /** Checks the message just received; remembers each page that differs. */
    void check(MemorySegment buffer) {
        checked++;
        boolean valid = true;
        for (int page = 0; page * Pingpong.PAGE_SIZE < size; page++) {
            int from = page * Pingpong.PAGE_SIZE;
            int to = Math.min(size, from + Pingpong.PAGE_SIZE);
            for (int i = from; i < to; i++) {
                if (buffer.get(ValueLayout.JAVA_BYTE, offset + i) != expected(i)) {
                    invalidPages.set(page);
                    valid = false;
                    break;
                }
            }
        }
        if (!valid && invalidMessages++ == 0) {
            firstInvalid = checked;
        }
    }

    /**
     * TEST ONLY ({@code --corrupt-payload-for-test}): spoils the first byte of the message we are
     * about to send (a page start, which the C server's check reads too).
     */
    void corrupt(MemorySegment buffer) {
        buffer.set(ValueLayout.JAVA_BYTE, offset, (byte) ~expected(0));
    }

    /**
     * After the result lines: the C server's {@code invalid data in page N} for each page that was
     * wrong in any received message, and on stderr how many messages were; true when all were intact.
     */
    boolean report(PrintWriter out, PrintWriter err) {
        for (int page = invalidPages.nextSetBit(0); page >= 0; page = invalidPages.nextSetBit(page + 1)) {
            out.printf("invalid data in page %d%n", page);
        }
        out.flush();
        if (invalidMessages > 0) {
            err.printf("-c: %d of %d received messages had invalid data (the first: message %d)%n", invalidMessages,
                    checked, firstInvalid);
            err.flush();
        }
        return invalidMessages == 0;
    }
}
