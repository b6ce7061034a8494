package org.roce4j.verbs.spi;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.Set;

import org.roce4j.verbs.AccessFlag;
import org.roce4j.verbs.ScatterGatherList;

/**
 * The memory registered on one context, indexed by native address: where a provider finds the
 * registered segment that holds the bytes of an INLINE send. libibverbs copies inline data from the
 * SGE's address at post time and ignores its lkey, so from Java an arbitrary address there is a
 * read of arbitrary native memory — a crash (SIGSEGV) for a bad address, or bytes of memory the
 * application never offered for a live one. Both providers therefore accept inline data only when
 * it lies inside a live segment registered on the posting QP's context, and copy it through that
 * segment. Thread-safe; a lookup allocates nothing.
 */
public final class RegisteredMemory {
    private long[] starts = new long[8];
    private MemorySegment[] segments = new MemorySegment[8];
    private int size;

    /** An empty index, for a context just opened. */
    public RegisteredMemory() {
    }

    /**
     * A segment was registered ({@code ibv_reg_mr}). The same memory may be registered more than once.
     *
     * @param segment the registered memory
     */
    public synchronized void add(MemorySegment segment) {
        if (size == starts.length) {
            starts = Arrays.copyOf(starts, size * 2);
            segments = Arrays.copyOf(segments, size * 2);
        }
        int at = insertionPoint(segment.address());
        System.arraycopy(starts, at, starts, at + 1, size - at);
        System.arraycopy(segments, at, segments, at + 1, size - at);
        starts[at] = segment.address();
        segments[at] = segment;
        size++;
    }

    /**
     * A registration ended ({@code ibv_dereg_mr}): removes that segment object, compared by identity.
     *
     * @param segment the segment {@link #add} was given
     */
    public synchronized void remove(MemorySegment segment) {
        for (int i = 0; i < size; i++) {
            if (segments[i] == segment) {
                System.arraycopy(starts, i + 1, starts, i, size - i - 1);
                System.arraycopy(segments, i + 1, segments, i, size - i - 1);
                segments[--size] = null;
                return;
            }
        }
    }

    /**
     * {@return the registered segment, still alive, that holds {@code [address, address + length)}
     * (native addresses, not IOVAs), or null} The caller reads at {@code address - segment.address()}.
     *
     * @param address the first byte's native address
     * @param length  how many bytes
     */
    public synchronized MemorySegment holding(long address, long length) {
        for (int i = insertionPoint(address) - 1; i >= 0; i--) {
            MemorySegment s = segments[i];
            long offset = address - starts[i]; // >= 0: starts[i] <= address
            if (Long.compareUnsigned(offset, s.byteSize()) <= 0
                    && Long.compareUnsigned(length, s.byteSize() - offset) <= 0 && s.scope().isAlive()) {
                return s;
            }
        }
        return null;
    }

    /**
     * {@return why an INLINE send's SGE list cannot be read, or null} Every non-empty SGE must lie
     * inside a live segment registered on this context. The lkeys are ignored, as libibverbs ignores
     * them for INLINE. The provider answers the post with EINVAL, naming the WR, as for any other bad
     * work request.
     *
     * @param sgl the SGEs of the INLINE send
     */
    public String inlineProblem(ScatterGatherList sgl) {
        for (int i = 0; i < sgl.count(); i++) {
            long length = Integer.toUnsignedLong(sgl.length(i));
            if (length != 0 && holding(sgl.address(i), length) == null) {
                return "INLINE data of SGE " + i + " (" + length + " bytes at 0x" + Long.toHexString(sgl.address(i))
                        + ") is not inside live memory registered on this context";
            }
        }
        return null;
    }

    /**
     * {@return why {@code ibv_reg_mr} (or {@code ibv_reg_mr_iova}) must refuse this registration with
     * EINVAL, or null} The checks every provider makes before it registers anything: the memory must
     * be native and not empty; REMOTE_WRITE and REMOTE_ATOMIC need LOCAL_WRITE (IBTA 10.6.3.1, o10-26;
     * {@code ib_check_mr_access} says EINVAL too); {@code iova + length} must not wrap past 2^64.
     * A provider adds what only it knows (a closed arena, memory its RNIC cannot reach).
     *
     * @param memory the memory to register
     * @param iova   the address the region will have on the wire
     * @param access the access asked for
     */
    public static String registrationProblem(MemorySegment memory, long iova, Set<AccessFlag> access) {
        if (!memory.isNative()) {
            return "the segment is on the Java heap; an RNIC reads and writes a fixed address, so allocate the "
                    + "memory natively (Arena.allocate)";
        }
        if (memory.byteSize() == 0) {
            return "the segment is empty";
        }
        if ((access.contains(AccessFlag.REMOTE_WRITE) || access.contains(AccessFlag.REMOTE_ATOMIC))
                && !access.contains(AccessFlag.LOCAL_WRITE)) {
            return "REMOTE_WRITE and REMOTE_ATOMIC require LOCAL_WRITE (IBTA o10-26)";
        }
        if (Long.compareUnsigned(iova, -memory.byteSize()) > 0) {
            return "iova + length wraps past 2^64";
        }
        return null;
    }

    /** {@return how many registrations the index holds} */
    public synchronized int size() {
        return size;
    }

    /** The index after the last start at or below {@code address} (unsigned order: addresses are unsigned). */
    private int insertionPoint(long address) {
        int low = 0;
        int high = size;
        while (low < high) {
            int mid = (low + high) >>> 1;
            if (Long.compareUnsigned(starts[mid], address) <= 0) {
                low = mid + 1;
            } else {
                high = mid;
            }
        }
        return low;
    }
}
