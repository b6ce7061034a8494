package org.roce4j.examples;

import java.lang.foreign.ValueLayout;
import java.util.EnumSet;
import java.util.Optional;

import org.roce4j.verbs.AccessFlag;
import org.roce4j.verbs.Mr;
import org.roce4j.verbs.Qp;
import org.roce4j.verbs.RecvWr;
import org.roce4j.verbs.SendWr;
import org.roce4j.verbs.WcOpcode;
import org.roce4j.verbs.WcStatus;
import org.roce4j.verbs.WorkCompletion;

/**
 * The receiving side of a ring buffer written by a {@link RingProducer}: the ring is registered
 * memory the producer writes into, each message arriving as an RDMA WRITE with immediate that
 * consumes one posted (zero-length) receive and says which message it was and how long.
 */
public final class RingConsumer {
    /**
     * Where the ring is: what the producer needs, sent out of band.
     *
     * @param address   the ring's remote address
     * @param rkey      its rkey
     * @param slots     the number of slots
     * @param slotBytes the size of a slot
     */
    public record Ring(long address, int rkey, int slots, int slotBytes) {
    }

    private final Endpoint endpoint;
    private final Qp qp;
    private final Mr ring;
    private final Ring description;
    private final Mr consumedWord;
    private final long creditAddress;
    private final int creditRkey;
    private final SendWr creditWrite = new SendWr();
    private final RecvWr receive = new RecvWr();
    private final WorkCompletion[] one = new WorkCompletion[1];
    private long consumed;
    private long creditsReturned;

    /**
     * A consumer of a ring of {@code slots} slots of {@code slotBytes}, on a QP in INIT or later.
     * Posts one receive per slot.
     *
     * @param endpoint      the consumer's side
     * @param qp            its RC QP (receive queue of at least {@code slots})
     * @param slots         the number of slots
     * @param slotBytes     the size of a slot
     * @param creditAddress where the producer's credit word is
     * @param creditRkey    its rkey
     */
    public RingConsumer(Endpoint endpoint, Qp qp, int slots, int slotBytes, long creditAddress, int creditRkey) {
        this.endpoint = endpoint;
        this.qp = qp;
        this.ring = endpoint.register((long) slots * slotBytes, EnumSet.of(AccessFlag.LOCAL_WRITE, AccessFlag.REMOTE_WRITE));
        this.description = new Ring(ring.address(), ring.rkey(), slots, slotBytes);
        this.consumedWord = endpoint.register(8, EnumSet.of(AccessFlag.LOCAL_WRITE));
        this.creditAddress = creditAddress;
        this.creditRkey = creditRkey;
        for (int i = 0; i < slots; i++) {
            qp.postRecv(receive.reset().wrId(i));
        }
    }

    /** The immediate value of message {@code sequence}: its low 16 bits, then the length. */
    static int immediate(long sequence, int length) {
        return (int) (sequence & 0xFFFF) << 16 | length;
    }

    /** {@return the ring, as the producer needs it} */
    public Ring ring() {
        return description;
    }

    /**
     * {@return the next message if one has arrived}
     *
     * @throws RdmaFailure if a completion failed or a message arrived out of order
     */
    public Optional<byte[]> poll() {
        while (endpoint.cq().poll(one) == 1) {
            WorkCompletion wc = one[0];
            if (wc.status() != WcStatus.SUCCESS) {
                throw new RdmaFailure("ring completion failed: " + wc);
            }
            if (wc.opcode() != WcOpcode.RECV_RDMA_WITH_IMM) {
                continue; // the completion of a credit write
            }
            int sequence = wc.immData() >>> 16;
            int length = wc.immData() & 0xFFFF;
            if (sequence != (consumed & 0xFFFF)) {
                throw new RdmaFailure("message " + sequence + " arrived where " + (consumed & 0xFFFF) + " was due");
            }
            long offset = (consumed % description.slots()) * description.slotBytes();
            byte[] message = ring.segment().asSlice(offset, length).toArray(ValueLayout.JAVA_BYTE);
            consumed++;
            qp.postRecv(receive.reset().wrId(consumed));
            if (consumed - creditsReturned >= Math.max(1, description.slots() / 2)) {
                returnCredits();
            }
            return Optional.of(message);
        }
        return Optional.empty();
    }

    /**
     * {@return the next message, waiting (polling) for it}
     *
     * @throws RdmaFailure if none arrives within {@link Polling#TIMEOUT}
     */
    public byte[] take() {
        long deadline = System.nanoTime() + Polling.TIMEOUT.toNanos();
        while (true) {
            Optional<byte[]> message = poll();
            if (message.isPresent()) {
                return message.get();
            }
            if (System.nanoTime() > deadline) {
                throw new RdmaFailure("no message within " + Polling.TIMEOUT.toSeconds() + " s");
            }
            Thread.onSpinWait();
        }
    }

    /** Tells the producer how far we have read: an RDMA WRITE of the count into its credit word. */
    private void returnCredits() {
        consumedWord.segment().set(ValueLayout.JAVA_LONG, 0, consumed);
        qp.postSend(creditWrite.reset().wrId(-consumed).opcode(org.roce4j.verbs.WrOpcode.RDMA_WRITE).signaled(true)
                .sge(consumedWord, 0, 8).remote(creditAddress, creditRkey));
        creditsReturned = consumed;
    }

    /** {@return the messages consumed so far} */
    public long consumed() {
        return consumed;
    }
}
