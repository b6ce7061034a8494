package org.roce4j.emulator.fabric;

import java.util.Arrays;
import java.util.List;

/**
 * Frames waiting for their delivery time, earliest first; among equal times, in the order they
 * were queued. That order is total, so a deterministic run delivers byte for byte the same way
 * every time.
 *
 * <p>A binary heap of slot numbers over parallel arrays, not a {@code PriorityQueue} of objects:
 * once the arrays have grown to the largest backlog, queuing and removing allocate nothing.
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
    /** Per slot: whether the frame is as its sender built it ({@link FabricPort#transmitUnchanged}). */
    private boolean[] unchanged;
    /** Slot numbers, heap-ordered by (time, sequence). */
    private int[] heap;
    private int size;
    private int[] freeSlots;
    private int freeSlotCount;
    /** Slots ever handed out; the next new slot number. */
    private int slotsUsed;
    private long nextSequence;

    DeliveryQueue(int initialCapacity) {
        int capacity = Math.max(initialCapacity, 4);
        time = new long[capacity];
        sequence = new long[capacity];
        buffer = new byte[capacity][];
        length = new int[capacity];
        destination = new AttachedPort[capacity];
        faults = new List<?>[capacity];
        unchanged = new boolean[capacity];
        heap = new int[capacity];
        freeSlots = new int[capacity];
    }

    /** Queues a frame, held in {@code frame[0 .. frameLength)}, for {@code deliveryNanos}. */
    void add(long deliveryNanos, byte[] frame, int frameLength, AttachedPort to) {
        add(deliveryNanos, frame, frameLength, to, null, false);
    }

    /**
     * Queues a frame with what the fault injector did to it ({@code faultNotes}, for the tap; may be null)
     * and whether it is as its sender built it ({@code asBuilt}).
     */
    void add(long deliveryNanos, byte[] frame, int frameLength, AttachedPort to, List<String> faultNotes,
             boolean asBuilt) {
        int slot = allocateSlot();
        faults[slot] = faultNotes;
        unchanged[slot] = asBuilt;
        time[slot] = deliveryNanos;
        sequence[slot] = nextSequence++;
        buffer[slot] = frame;
        length[slot] = frameLength;
        destination[slot] = to;
        siftUp(size++, slot);
    }

    boolean isEmpty() {
        return size == 0;
    }

    int size() {
        return size;
    }

    /** {@return the delivery time of the earliest frame, or {@link Long#MAX_VALUE} if none} */
    long earliestTime() {
        return size == 0 ? Long.MAX_VALUE : time[heap[0]];
    }

    /**
     * Takes the earliest frame out of the queue.
     *
     * @return its slot, whose fields stay readable until {@link #free}
     * @throws IllegalStateException if the queue is empty
     */
    int removeEarliest() {
        if (size == 0) {
            throw new IllegalStateException("no frame queued");
        }
        int slot = heap[0];
        int last = heap[--size];
        if (size > 0) {
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
        return unchanged[slot];
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
        unchanged = Arrays.copyOf(unchanged, capacity);
        heap = Arrays.copyOf(heap, capacity);
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
        int half = size >>> 1;
        while (index < half) {
            int childIndex = 2 * index + 1;
            int child = heap[childIndex];
            int rightIndex = childIndex + 1;
            if (rightIndex < size && before(heap[rightIndex], child)) {
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
