package org.roce4j.emulator.fabric;

/**
 * Reuses the arrays that hold frame copies, so that once warm transmitting and delivering a frame
 * allocates nothing (DESIGN.md §3.9). Arrays come in power-of-two size classes from 64 bytes
 * (a minimum Ethernet frame) to the class that holds {@link Fabric#MAX_FRAME_LENGTH}: one pool of
 * jumbo-sized arrays would spend 9 KiB on every 60-byte ACK. Not thread-safe: the fabric lock
 * guards it.
 */
final class FramePool {

    private static final int SMALLEST_CLASS_SHIFT = 6;
    private static final int CLASS_COUNT =
            classOf(Fabric.MAX_FRAME_LENGTH) + 1;

    /**
     * Arrays kept per class at most: after a burst the pool shrinks back to this instead of
     * holding the burst's memory forever.
     */
    static final int MAX_RETAINED_PER_CLASS = 4096;

    private final byte[][][] free = new byte[CLASS_COUNT][][];
    private final int[] freeCount = new int[CLASS_COUNT];

    FramePool() {
        for (int c = 0; c < CLASS_COUNT; c++) {
            free[c] = new byte[16][];
        }
    }

    /** {@return an array of at least {@code length} bytes, 1 to MAX_FRAME_LENGTH; contents undefined} */
    byte[] take(int length) {
        int c = classOf(length);
        int n = freeCount[c];
        if (n == 0) {
            return new byte[1 << (c + SMALLEST_CLASS_SHIFT)];
        }
        byte[][] stack = free[c];
        byte[] buffer = stack[--n];
        stack[n] = null;
        freeCount[c] = n;
        return buffer;
    }

    /** Returns an array that {@link #take} handed out. */
    void give(byte[] buffer) {
        int c = classOf(buffer.length);
        int n = freeCount[c];
        if (n == MAX_RETAINED_PER_CLASS) {
            return;
        }
        byte[][] stack = free[c];
        if (n == stack.length) {
            stack = java.util.Arrays.copyOf(stack, n * 2);
            free[c] = stack;
        }
        stack[n] = buffer;
        freeCount[c] = n + 1;
    }

    /** {@return how many arrays of the class that holds {@code length} bytes are free} */
    int freeCount(int length) {
        return freeCount[classOf(length)];
    }

    private static int classOf(int length) {
        int bits = 32 - Integer.numberOfLeadingZeros(Math.max(length, 1) - 1);
        return Math.max(bits - SMALLEST_CLASS_SHIFT, 0);
    }
}
