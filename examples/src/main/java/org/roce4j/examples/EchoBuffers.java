package org.roce4j.examples;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;
import java.util.EnumSet;
import org.roce4j.verbs.AccessFlag;
import org.roce4j.verbs.Cq;
import org.roce4j.verbs.Mr;
import org.roce4j.verbs.Pd;
import org.roce4j.verbs.Qp;
import org.roce4j.verbs.RecvWr;
import org.roce4j.verbs.SendWr;
import org.roce4j.verbs.WcOpcode;
import org.roce4j.verbs.WorkCompletion;

/**
 * One side of the echo example: a receive slot and a send slot of {@link #SLOT} bytes on the
 * connection's PD, with one receive posted at a time and one SEND in flight at a time (the send slot
 * is only rewritten once its SEND has completed, as a retransmission reads it again).
 */
final class EchoBuffers implements AutoCloseable {
    /** The largest message. */
    static final int SLOT = 256;
    private static final long RECEIVE = 0;
    private static final long SEND = SLOT;

    private final Arena arena = Arena.ofShared();
    private final Mr mr;
    private final Qp qp;
    private final Cq cq;
    private long sendsPosted;
    private long sendsDone;

    EchoBuffers(Qp qp, Pd pd) {
        this.qp = qp;
        this.cq = qp.initAttr().sendCq();
        mr = pd.regMr(arena.allocate(2 * SLOT, 8), EnumSet.of(AccessFlag.LOCAL_WRITE));
        postReceive();
    }

    /** Posts the receive slot (wr_id 1). */
    void postReceive() {
        qp.postRecv(RecvWr.of(1, mr, RECEIVE, SLOT));
    }

    /** Waits for the previous SEND, then copies {@code message} into the send slot and posts it (wr_id 2). */
    void send(byte[] message) {
        awaitSends();
        MemorySegment.copy(message, 0, mr.segment(), ValueLayout.JAVA_BYTE, SEND, message.length);
        qp.postSend(SendWr.send(2, mr, SEND, message.length));
        sendsPosted++;
    }

    /** {@return the next message received (the receive slot is not posted again: call {@link #postReceive()})} */
    byte[] receive() {
        while (true) {
            WorkCompletion wc = Polling.next(cq);
            if (wc.opcode() == WcOpcode.RECV) {
                return Arrays.copyOf(mr.segment().asSlice(RECEIVE, SLOT).toArray(ValueLayout.JAVA_BYTE), wc.byteLen());
            }
            sendsDone++;
        }
    }

    /** Waits until every SEND posted has completed (a RECV meanwhile would be a protocol error here). */
    void awaitSends() {
        while (sendsDone < sendsPosted) {
            WorkCompletion wc = Polling.next(cq);
            if (wc.opcode() != WcOpcode.SEND) {
                throw new RdmaFailure("a message arrived while a SEND was in flight: " + wc);
            }
            sendsDone++;
        }
    }

    @Override
    public void close() {
        mr.close();
        arena.close();
    }
}
