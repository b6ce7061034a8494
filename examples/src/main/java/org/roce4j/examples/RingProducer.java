package org.roce4j.examples;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.EnumSet;

import org.roce4j.verbs.AccessFlag;
import org.roce4j.verbs.Mr;
import org.roce4j.verbs.Qp;
import org.roce4j.verbs.SendWr;
import org.roce4j.verbs.WcStatus;
import org.roce4j.verbs.WorkCompletion;
import org.roce4j.verbs.WrOpcode;

/**
 * Writes messages into a {@link RingConsumer}'s ring with RDMA WRITE with immediate: the payload
 * lands in the next slot of the consumer's memory and the immediate value (sequence number and
 * length) wakes the consumer with a receive completion. The consumer hands back credit by writing
 * how many messages it has consumed into this side's credit word, so the producer never overwrites
 * a slot that was not read.
 */
public final class RingProducer {
    private final Endpoint endpoint;
    private final Qp qp;
    private final RingConsumer.Ring ring;
    private final Mr staging;
    private final Mr credit;
    private final SendWr write = new SendWr();
    private final WorkCompletion[] completions = new WorkCompletion[16];
    private long sent;
    private long unreaped;

    /**
     * A producer on a connected RC QP.
     *
     * @param endpoint the producer's side
     * @param qp       an RC QP in RTS connected to the consumer's, with room for several rings of sends (a WRITE completes only when acknowledged)
     * @param ring     where the consumer's ring is
     * @param credit   this side's credit word, 8 bytes the consumer writes remotely ({@link #creditWord})
     */
    public RingProducer(Endpoint endpoint, Qp qp, RingConsumer.Ring ring, Mr credit) {
        this.endpoint = endpoint;
        this.qp = qp;
        this.ring = ring;
        this.credit = credit;
        this.staging = endpoint.register((long) ring.slots() * ring.slotBytes(), EnumSet.of(AccessFlag.LOCAL_WRITE));
    }

    /**
     * {@return an 8-byte credit word on {@code endpoint} the consumer may write}
     *
     * @param endpoint the producer's side
     */
    public static Mr creditWord(Endpoint endpoint) {
        return endpoint.register(8, EnumSet.of(AccessFlag.LOCAL_WRITE, AccessFlag.REMOTE_WRITE));
    }

    /**
     * Sends one message if the ring has a free slot.
     *
     * @param message at most {@code slotBytes} bytes
     * @return false if the ring is full (try again after the consumer caught up)
     * @throws RdmaFailure if an earlier WRITE failed
     */
    public boolean offer(byte[] message) {
        if (message.length > ring.slotBytes() || message.length > 0xFFFF) {
            throw new IllegalArgumentException("a message of " + message.length + " bytes does not fit a slot");
        }
        reap();
        long consumed = credit.segment().get(ValueLayout.JAVA_LONG, 0);
        if (sent - consumed >= ring.slots()) {
            return false;
        }
        int slot = (int) (sent % ring.slots());
        long offset = (long) slot * ring.slotBytes();
        MemorySegment.copy(MemorySegment.ofArray(message), 0, staging.segment(), offset, message.length);
        write.reset().wrId(sent).opcode(WrOpcode.RDMA_WRITE_WITH_IMM).signaled(true)
                .sge(staging, offset, message.length)
                .remote(ring.address() + offset, ring.rkey())
                .immData(RingConsumer.immediate(sent, message.length));
        qp.postSend(write);
        sent++;
        unreaped++;
        return true;
    }

    /** Sends a message, waiting (polling) for a free slot. */
    void put(byte[] message) {
        long deadline = System.nanoTime() + Polling.TIMEOUT.toNanos();
        while (!offer(message)) {
            if (System.nanoTime() > deadline) {
                throw new RdmaFailure("the ring stayed full for " + Polling.TIMEOUT.toSeconds() + " s");
            }
            Thread.onSpinWait();
        }
    }

    /** Waits until every WRITE posted so far has completed. */
    public void flush() {
        while (unreaped > 0) {
            Polling.next(endpoint.cq());
            unreaped--;
        }
    }

    /** {@return the messages sent so far} */
    public long sent() {
        return sent;
    }

    private void reap() {
        int n = endpoint.cq().poll(completions);
        for (int i = 0; i < n; i++) {
            if (completions[i].status() != WcStatus.SUCCESS) {
                throw new RdmaFailure("ring write " + completions[i].wrId() + " failed: " + completions[i]);
            }
        }
        unreaped -= n;
    }
}
