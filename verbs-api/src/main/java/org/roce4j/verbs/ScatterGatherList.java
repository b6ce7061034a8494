package org.roce4j.verbs;

import java.util.Arrays;
import java.util.Objects;

/**
 * The SGEs of a work request ({@code struct ibv_sge[]}), stored in parallel arrays that grow once and
 * are reused, so that a reused work request posts without allocating.
 */
public final class ScatterGatherList {
    private long[] addresses = new long[2];
    private int[] lengths = new int[2];
    private int[] lkeys = new int[2];
    private int count;

    /** An empty list. */
    public ScatterGatherList() {
    }

    /**
     * {@return this list, with an SGE appended: {@code length} bytes at virtual address {@code address} of the region with {@code lkey}}
     *
     * @param address the buffer's virtual address
     * @param length  its length (unsigned 32 bits)
     * @param lkey    the local key of the region it is in
     */
    public ScatterGatherList add(long address, int length, int lkey) {
        if (count == addresses.length) {
            int capacity = count * 2;
            addresses = Arrays.copyOf(addresses, capacity);
            lengths = Arrays.copyOf(lengths, capacity);
            lkeys = Arrays.copyOf(lkeys, capacity);
        }
        addresses[count] = address;
        lengths[count] = length;
        lkeys[count] = lkey;
        count++;
        return this;
    }

    /**
     * {@return this list, with an SGE appended that covers {@code length} bytes at {@code offset} into a registered region}
     *
     * @param mr     the region
     * @param offset where in it
     * @param length how many bytes
     */
    public ScatterGatherList add(Mr mr, long offset, int length) {
        return add(Objects.requireNonNull(mr, "mr").address() + offset, length, mr.lkey());
    }

    /** Removes every SGE; the arrays keep their capacity. */
    public void clear() {
        count = 0;
    }

    /** {@return the number of SGEs ({@code num_sge})} */
    public int count() {
        return count;
    }

    /**
     * {@return the virtual address of SGE {@code index}}
     *
     * @param index from 0
     * @throws IndexOutOfBoundsException if there is no such SGE
     */
    public long address(int index) {
        return addresses[checked(index)];
    }

    /**
     * {@return the SGE's length as the unsigned 32-bit value libibverbs carries}
     *
     * @param index from 0
     * @throws IndexOutOfBoundsException if there is no such SGE
     */
    public int length(int index) {
        return lengths[checked(index)];
    }

    /**
     * {@return the lkey of SGE {@code index}}
     *
     * @param index from 0
     * @throws IndexOutOfBoundsException if there is no such SGE
     */
    public int lkey(int index) {
        return lkeys[checked(index)];
    }

    /** {@return the sum of the SGE lengths; it may exceed 2^31 - 1, so it is a long} */
    public long totalLength() {
        long total = 0;
        for (int i = 0; i < count; i++) {
            total += Integer.toUnsignedLong(lengths[i]);
        }
        return total;
    }

    private int checked(int index) {
        if (index < 0 || index >= count) {
            throw new IndexOutOfBoundsException("SGE " + index + " of " + count);
        }
        return index;
    }

    @Override
    public String toString() {
        StringBuilder text = new StringBuilder("[");
        for (int i = 0; i < count; i++) {
            if (i > 0) {
                text.append(", ");
            }
            text.append("{addr=0x").append(Long.toHexString(addresses[i]))
                    .append(", length=").append(Integer.toUnsignedString(lengths[i]))
                    .append(", lkey=").append(NumberText.key(lkeys[i])).append('}');
        }
        return text.append(']').toString();
    }
}
