package org.roce4j.verbs;

import java.lang.foreign.MemorySegment;
import java.util.Set;

/** A registered memory region: {@code struct ibv_mr}. Closing it is {@code ibv_dereg_mr}. */
public interface Mr extends AutoCloseable {
    /** {@return the protection domain the region belongs to} */
    Pd pd();

    /** {@return the key local work requests name this region with in their SGEs ({@code lkey})} */
    int lkey();

    /** {@return the key remote peers name this region with in RETH and AtomicETH ({@code rkey})} */
    int rkey();

    /** {@return the virtual address of the first byte, as SGEs and remote peers address it ({@code addr})} */
    long address();

    /** {@return the region's length in bytes ({@code length})} */
    long length();

    /** {@return the registered memory} */
    MemorySegment segment();

    /** {@return the rights the region was registered with} */
    Set<AccessFlag> access();

    /** {@code ibv_dereg_mr}; EBUSY while memory windows are bound to it. */
    @Override
    void close();
}
