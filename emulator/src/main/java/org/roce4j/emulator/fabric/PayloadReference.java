package org.roce4j.emulator.fabric;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * A frame's payload left in its sender's memory until the frame is delivered: the in-process fabric's
 * one copy, as an RNIC's DMA engine moves a WRITE's bytes from the source region to the destination region
 * without a copy in between. The frame's own bytes at {@link #frameOffset()} are then undefined; only a
 * receiver that takes the reference ({@link FrameReceiver#onUnchangedFrame(byte[], int, int, long,
 * PayloadReference)}) may leave them so, every other reader first {@link #copyInto copies them in}. A
 * sender hands one over only where nothing but RNICs reads frames — the same condition under which it
 * leaves the ICRC out ({@link FabricPort#needsIcrc()}): no tap, no fault filter, no other receiver.
 *
 * <p>Mutable and reused, so that a frame sent by reference allocates nothing: the sender fills its own
 * before each transmit, the fabric copies the fields into its queue and fills another for each delivery;
 * neither is valid after the call it was passed to.
 */
public final class PayloadReference {

    /** Memory a payload can be left in: a registered region. */
    public interface Source {
        /** {@return the memory} */
        MemorySegment segment();

        /**
         * {@return whether the RNIC may still read it} False once its region was deregistered or invalidated (its
         * memory is never touched again) or its arena closed: a frame whose payload is there is then lost.
         */
        boolean isReadable();
    }

    private Source source;
    private long sourceOffset;
    private int frameOffset;
    private int length;
    private int packets = 1;
    private int identificationStep;
    private boolean ackReqOnLast;
    private boolean endsMessage;

    /**
     * Points at {@code length} bytes of {@code source} from {@code sourceOffset}, which belong at {@code frameOffset}
     * of the frame: one packet.
     */
    public PayloadReference set(Source source, long sourceOffset, int frameOffset, int length) {
        this.source = source;
        this.sourceOffset = sourceOffset;
        this.frameOffset = frameOffset;
        this.length = length;
        this.packets = 1;
        return this;
    }

    /**
     * Makes the frame, a MIDDLE packet, stand for a run of {@code packets} packets of one message (a train), the
     * bytes set by {@link #set} being the first {@code packetLength} of them: each next packet carries the next
     * {@code packetLength} bytes of the source, the next PSN and an IPv4 Identification {@code identificationStep}
     * more; the last one asks for an ACK if {@code ackReqOnLast}, and is the message's plain LAST packet if
     * {@code endsMessage} (the others are MIDDLE ones; {@link org.roce4j.wire.PacketWriter#nextPacket}). The fabric
     * delivers them one by one, as it would the frames sent one by one: a sender builds and routes the headers once
     * instead of once a packet.
     */
    public PayloadReference train(int packets, int packetLength, int identificationStep, boolean ackReqOnLast,
                                  boolean endsMessage) {
        if (packets < 1 || (long) packets * packetLength > length) {
            throw new IllegalArgumentException(packets + " packets of " + packetLength + " bytes in " + length);
        }
        this.packets = packets;
        this.length = packetLength;
        this.identificationStep = identificationStep;
        this.ackReqOnLast = ackReqOnLast;
        this.endsMessage = endsMessage;
        return this;
    }

    /** {@return how many packets the frame stands for: 1, or a train's ({@link #train})} */
    public int packets() {
        return packets;
    }

    /** How much a train's next packet adds to the IPv4 Identification: 1, or 0 where every packet has 0. */
    public int identificationStep() {
        return identificationStep;
    }

    /** Whether a train's last packet is its message's LAST (else a MIDDLE). */
    public boolean endsMessage() {
        return endsMessage;
    }

    /** Whether a train's last packet asks for an ACK. */
    public boolean ackReqOnLast() {
        return ackReqOnLast;
    }

    /** The memory the payload is in (its sender's registered region). */
    public Source source() {
        return source;
    }

    public long sourceOffset() {
        return sourceOffset;
    }

    /** Where in the frame, from its first byte, the payload belongs. */
    public int frameOffset() {
        return frameOffset;
    }

    public int length() {
        return length;
    }

    /** {@return whether the payload can still be read ({@link Source#isReadable})} */
    public boolean isReadable() {
        return source.isReadable();
    }

    /**
     * Copies the payload into the frame that starts at {@code frame[offset]}, which then holds every byte.
     *
     * @throws IllegalStateException if the source's arena was closed (a region deregistered is still copied from:
     *         the caller, which knows, checks {@link #isReadable} first)
     * @throws WrongThreadException if the source is confined to another thread
     */
    public void copyInto(byte[] frame, int offset) {
        MemorySegment.copy(source.segment(), ValueLayout.JAVA_BYTE, sourceOffset, frame, offset + frameOffset, length);
    }
}
