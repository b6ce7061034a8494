package org.roce4j.verbs;

import java.lang.foreign.MemorySegment;
import java.util.Set;

/** A registered memory region: {@code struct ibv_mr}. Closing it is {@code ibv_dereg_mr}. */
public interface Mr extends AutoCloseable {
    Pd pd();

    /** The key local work requests name this region with in their SGEs. */
    int lkey();

    /** The key remote peers name this region with (RETH, AtomicETH). */
    int rkey();

    /** The virtual address of the first byte, as remote peers address it. */
    long address();

    long length();

    /** The registered memory. */
    MemorySegment segment();

    Set<AccessFlag> access();

    /** {@code ibv_dereg_mr}; EBUSY while memory windows are bound to it. */
    @Override
    void close();
}
