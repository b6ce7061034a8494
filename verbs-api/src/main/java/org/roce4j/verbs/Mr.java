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

    /** {@return the rights the region was registered with, or last reregistered with} */
    Set<AccessFlag> access();

    /**
     * {@code ibv_rereg_mr}: changes, in one step, the memory the region covers (addressed at its own address,
     * as {@code ibv_rereg_mr} takes {@code addr} for the I/O address too), its protection domain and its
     * rights. Afterwards the old memory, PD and rights no longer work through the region's keys; the lkey
     * and rkey stay unless the device changes them (read {@link #lkey()} and {@link #rkey()} again).
     *
     * <p>{@link ReregMrException} {@link ReregMrException.ErrorCode#INPUT INPUT} with EINVAL (libibverbs' own
     * checks): CHANGE_TRANSLATION without memory, rights given without CHANGE_ACCESS.
     * {@link ReregMrException.ErrorCode#CMD CMD} (the kernel's {@code ib_uverbs_rereg_mr}): EINVAL for no flag,
     * rights that break IBTA o10-26, a PD of another context, memory a region cannot cover; EOPNOTSUPP from a
     * device that cannot reregister (rdma-core's rxe provider).
     *
     * @param flags  what to change
     * @param pd     the new protection domain (CHANGE_PD), else ignored
     * @param memory the new memory (CHANGE_TRANSLATION), else ignored
     * @param access the new rights (CHANGE_ACCESS); must be empty otherwise
     */
    default void rereg(Set<ReregFlag> flags, Pd pd, MemorySegment memory, Set<AccessFlag> access) {
        throw new ReregMrException(ReregMrException.ErrorCode.CMD, Errno.EOPNOTSUPP, "not supported by this provider");
    }

    /** {@code ibv_dereg_mr}; EBUSY while memory windows are bound to it. */
    @Override
    void close();
}
