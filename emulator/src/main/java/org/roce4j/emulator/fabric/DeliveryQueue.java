package org.roce4j.emulator.fabric;

import java.util.Arrays;
import java.util.List;
import org.roce4j.wire.PacketWriter;

/**
 * Frames waiting for their delivery time, earliest first; among equal times, in the order they
 * were queued. That order is total, so a deterministic run delivers byte for byte the same way
 * every time.
 *
 * <p>Slot numbers over parallel arrays, not a {@code PriorityQueue} of objects: once the arrays have
 * grown to the largest backlog, queuing and removing allocate nothing. A frame due no earlier than the
 * last one queued in order goes to a FIFO ring — the common case, one link delay for every frame, costs
 * O(1) however many frames are in flight — and any other (a fault's delay, a shorter hop) to a binary
 * heap; the earlier of the two heads leaves first.
 * A removed entry keeps its slot until {@link #free}, so its bytes stay valid while they are
 * delivered. Not thread-safe: the fabric lock guards it.
 */
final class DeliveryQueue {

    private long[] time;
    private long[] sequence;
    private byte[][] buffer;
    private int[] length;
    private AttachedPort[] destination;
    /** What the fault injector did to each frame, for the tap's comments; null when nobody asked. */
    private List<?>[] faults;
    /** Per slot: the memory its payload is still in ({@link PayloadReference}), or null when the frame holds it. */
    private PayloadReference.Source[] payloadSource;
    private long[] payloadSourceOffset;
    private int[] payloadFrameOffset;
    private int[] payloadLength;
    /** Per slot: the packets it still stands for — 1, or what is left of a train ({@link PayloadReference#train}). */
    private int[] packets;
    /**
     * Per slot: whether the frame is as its sender built it ({@link FabricPort#transmitUnchanged}), and whether it
     * was sent so while nothing but RNICs read frames; for a train, its IPv4 Identification step, whether its last
     * packet asks for an ACK, whether that one ends the message, and whether its first packet was delivered.
     */
    private int[] flags;
    private static final int ACK_REQ_ON_LAST = 1 << 31;
    private static final int GOES_ON = 1 << 30;
    private static final int ENDS_MESSAGE = 1 << 29;
    private static final int SENT_UNREAD = 1 << 28;
    private static final int UNCHANGED = 1 << 27;
    private static final int IDENTIFICATION_STEP = 0xFFFF;
    /** Packets queued: the slots' {@link #packets} summed. */
    private int packetsQueued;
    /** Slot numbers, heap-ordered by (time, sequence). */
    private int[] heap;
    private int heapSize;
    /** Slot numbers in (time, sequence) order: each queued no earlier than the one before it. */
    private int[] inOrder;
    private int inOrderHead;
    private int inOrderSize;
    private int[] freeSlots;
    private int freeSlotCount;
    /** Slots ever handed out; the next new slot number. */
    private int slotsUsed;
    private long nextSequence;

    DeliveryQueue(int initialCapacity) {
        // A power of two, kept by grow()'s doubling: the in-order ring wraps with a mask, not a division.
        int capacity = Integer.highestOneBit(Math.max(initialCapacity, 4) - 1) << 1;
        time = new long[capacity];
        sequence = new long[capacity];
        buffer = new byte[capacity][];
        length = new int[capacity];
        destination = new AttachedPort[capacity];
        faults = new List<?>[capacity];
        payloadSource = new PayloadReference.Source[capacity];
        payloadSourceOffset = new long[capacity];
        payloadFrameOffset = new int[capacity];
        payloadLength = new int[capacity];
        packets = new int[capacity];
        flags = new int[capacity];
        heap = new int[capacity];
        inOrder = new int[capacity];
        freeSlots = new int[capacity];
    }

    /** Queues a frame, held in {@code frame[0 .. frameLength)}, for {@code deliveryNanos}. */
    void add(long deliveryNanos, byte[] frame, int frameLength, AttachedPort to) {
        add(deliveryNanos, frame, frameLength, to, null, false, false, null);
    }

    /**
     * Queues a frame with what the fault injector did to it ({@code faultNotes}, for the tap; may be null)
     * and whether it is as its sender built it ({@code asBuilt}), sent so while nothing but RNICs read frames
     * ({@code sentUnread}, see {@link #sentUnread}); {@code payload}, when not null, says where its payload still is
     * (its fields are copied: the caller may reuse it).
     */
    void add(long deliveryNanos, byte[] frame, int frameLength, AttachedPort to, List<String> faultNotes,
             boolean asBuilt, boolean sentUnread, PayloadReference payload) {
        int slot = allocateSlot();
        packets[slot] = 1;
        flags[slot] = (asBuilt ? UNCHANGED : 0) | (sentUnread ? SENT_UNREAD : 0);
        if (payload != null) {
            payloadSource[slot] = payload.source();
            payloadSourceOffset[slot] = payload.sourceOffset();
            payloadFrameOffset[slot] = payload.frameOffset();
            payloadLength[slot] = payload.length();
            packets[slot] = payload.packets();
            flags[slot] |= payload.identificationStep() | (payload.ackReqOnLast() ? ACK_REQ_ON_LAST : 0)
                    | (payload.endsMessage() ? ENDS_MESSAGE : 0);
        }
        packetsQueued += packets[slot];
        faults[slot] = faultNotes;
        time[slot] = deliveryNanos;
        sequence[slot] = nextSequence++;
        buffer[slot] = frame;
        length[slot] = frameLength;
        destination[slot] = to;
        if (inOrderSize == 0 || deliveryNanos >= time[inOrderAt(inOrderSize - 1)]) {
            inOrder[(inOrderHead + inOrderSize++) & (inOrder.length - 1)] = slot;
        } else {
            siftUp(heapSize++, slot);
        }
    }

    boolean isEmpty() {
        return heapSize + inOrderSize == 0;
    }

    /** {@return the packets queued: a train counts each of its packets still to come} */
    int size() {
        return packetsQueued;
    }

    /** {@return the delivery time of the earliest frame, or {@link Long#MAX_VALUE} if none} */
    long earliestTime() {
        int earliest = earliestSlot();
        return earliest < 0 ? Long.MAX_VALUE : time[earliest];
    }

    /** {@return the slot that leaves next, or -1 when the queue is empty} */
    private int earliestSlot() {
        if (inOrderSize == 0) {
            return heapSize == 0 ? -1 : heap[0];
        }
        int first = inOrder[inOrderHead];
        return heapSize == 0 || before(first, heap[0]) ? first : heap[0];
    }

    private int inOrderAt(int index) {
        return inOrder[(inOrderHead + index) & (inOrder.length - 1)];
    }

    /**
     * {@return the slot of the earliest frame, left in the queue}
     *
     * @throws IllegalStateException if the queue is empty
     */
    int earliest() {
        int slot = earliestSlot();
        if (slot < 0) {
            throw new IllegalStateException("no frame queued");
        }
        return slot;
    }

    /**
     * Takes the earliest frame out of the queue.
     *
     * @return its slot, whose fields stay readable until {@link #free}
     * @throws IllegalStateException if the queue is empty
     */
    int removeEarliest() {
        int slot = earliest();
        packetsQueued -= packets[slot];
        if (inOrderSize > 0 && slot == inOrder[inOrderHead]) {
            inOrderHead = (inOrderHead + 1) & (inOrder.length - 1);
            inOrderSize--;
            return slot;
        }
        int last = heap[--heapSize];
        if (heapSize > 0) {
            siftDown(0, last);
        }
        return slot;
    }

    long time(int slot) {
        return time[slot];
    }

    byte[] buffer(int slot) {
        return buffer[slot];
    }

    int length(int slot) {
        return length[slot];
    }

    AttachedPort destination(int slot) {
        return destination[slot];
    }

    /** {@return whether the frame is as its sender built it: its receiver need not check its ICRC} */
    boolean unchanged(int slot) {
        return (flags[slot] & UNCHANGED) != 0;
    }

    /** {@return the memory the frame's payload is still in, or null when the frame holds it} */
    PayloadReference.Source payloadSource(int slot) {
        return payloadSource[slot];
    }

    /** {@return {@code into}, pointed at the payload of the frame in {@code slot}, which {@link #payloadSource} has} */
    PayloadReference payload(int slot, PayloadReference into) {
        return into.set(payloadSource[slot], payloadSourceOffset[slot], payloadFrameOffset[slot], payloadLength[slot]);
    }

    /** {@return the packets the frame in {@code slot} still stands for: more than 1 for a train's} */
    int packets(int slot) {
        return packets[slot];
    }

    /**
     * The earliest slot, a train with packets left after the one just delivered, becomes its next packet: its
     * frame rewritten in place ({@link PacketWriter#nextPacket}), its payload the next bytes of the source.
     * It keeps its place: a train's packets were sent one after the other, and nothing else was queued between
     * them.
     */
    void nextPacketOfTrain(int slot) {
        packets[slot]--;
        packetsQueued--;
        payloadSourceOffset[slot] += payloadLength[slot];
        int train = flags[slot];
        flags[slot] = train | GOES_ON;
        boolean last = packets[slot] == 1;
        PacketWriter.nextPacket(buffer[slot], 0, train & IDENTIFICATION_STEP, last && (train & ACK_REQ_ON_LAST) != 0,
                last && (train & ENDS_MESSAGE) != 0);
    }

    /** {@return whether the frame in {@code slot} is a train's packet after its first ({@link #nextPacketOfTrain})} */
    boolean continuesTrain(int slot) {
        return (flags[slot] & GOES_ON) != 0;
    }

    /**
     * {@return whether the frame was sent as built while nothing but RNICs read frames ({@link FrameSwitch#needsIcrc}
     * false): its sender may have left its ICRC out and its payload in its memory}
     */
    boolean sentUnread(int slot) {
        return (flags[slot] & SENT_UNREAD) != 0;
    }

    /** {@return what the fault injector did to the frame, as queued; empty when nothing or nobody asked} */
    @SuppressWarnings("unchecked") // only add() stores here, and only List<String>
    List<String> faultNotes(int slot) {
        List<String> notes = (List<String>) faults[slot];
        return notes == null ? List.of() : notes;
    }

    /** Gives back the slot of a removed frame; the caller has taken care of its buffer. */
    void free(int slot) {
        buffer[slot] = null;
        destination[slot] = null;
        faults[slot] = null;
        payloadSource[slot] = null;
        freeSlots[freeSlotCount++] = slot;
    }

    private int allocateSlot() {
        if (freeSlotCount > 0) {
            return freeSlots[--freeSlotCount];
        }
        if (slotsUsed == time.length) {
            grow();
        }
        return slotsUsed++;
    }

    private void grow() {
        int capacity = time.length * 2;
        time = Arrays.copyOf(time, capacity);
        sequence = Arrays.copyOf(sequence, capacity);
        buffer = Arrays.copyOf(buffer, capacity);
        length = Arrays.copyOf(length, capacity);
        destination = Arrays.copyOf(destination, capacity);
        faults = Arrays.copyOf(faults, capacity);
        payloadSource = Arrays.copyOf(payloadSource, capacity);
        payloadSourceOffset = Arrays.copyOf(payloadSourceOffset, capacity);
        payloadFrameOffset = Arrays.copyOf(payloadFrameOffset, capacity);
        payloadLength = Arrays.copyOf(payloadLength, capacity);
        packets = Arrays.copyOf(packets, capacity);
        flags = Arrays.copyOf(flags, capacity);
        heap = Arrays.copyOf(heap, capacity);
        int[] unwrapped = new int[capacity];
        for (int i = 0; i < inOrderSize; i++) {
            unwrapped[i] = inOrderAt(i);
        }
        inOrder = unwrapped;
        inOrderHead = 0;
        freeSlots = Arrays.copyOf(freeSlots, capacity);
    }

    private boolean before(int a, int b) {
        return time[a] < time[b] || time[a] == time[b] && sequence[a] < sequence[b];
    }

    private void siftUp(int index, int slot) {
        while (index > 0) {
            int parentIndex = (index - 1) >>> 1;
            int parent = heap[parentIndex];
            if (!before(slot, parent)) {
                break;
            }
            heap[index] = parent;
            index = parentIndex;
        }
        heap[index] = slot;
    }

    private void siftDown(int index, int slot) {
        int half = heapSize >>> 1;
        while (index < half) {
            int childIndex = 2 * index + 1;
            int child = heap[childIndex];
            int rightIndex = childIndex + 1;
            if (rightIndex < heapSize && before(heap[rightIndex], child)) {
                childIndex = rightIndex;
                child = heap[childIndex];
            }
            if (!before(child, slot)) {
                break;
            }
            heap[index] = child;
            index = childIndex;
        }
        heap[index] = slot;
    }
}
