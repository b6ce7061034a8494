package org.roce4j.emulator.verbs;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;

import org.roce4j.emulator.fabric.PayloadReference;
import org.roce4j.verbs.AccessFlag;

/**
 * The RNIC's record of a registered region, like rxe's {@code struct rxe_mr}: the memory, the keys,
 * the access rights, the protection domain (compared by identity), and whether it may still be used.
 *
 * <p>The RNIC touches registered memory only through {@link #load}, {@link #store}, {@link #reference} and
 * {@link #atomic}, and each answers false instead of throwing: a region no longer VALID
 * (deregistered: its memory is never touched again), an arena closed after registration
 * ({@code IllegalStateException}), memory confined to a thread that is not the one driving the RNIC
 * ({@code WrongThreadException}), or any other failure of the access. The caller turns false into
 * the completion status libibverbs would give (see {@link RnicCounter#MEMORY_ACCESS_ERRORS}).
 */
public final class MemoryRegion implements PayloadReference.Source {
    private static final VarHandle ALIGNED_LONG = ValueLayout.JAVA_LONG.varHandle();
    /** The 8 bytes of an ATOMIC WRITE as the number they are in host order (they are copied as they came). */
    private static final VarHandle HOST_ORDER_LONG_IN_BYTES =
            java.lang.invoke.MethodHandles.byteArrayViewVarHandle(long[].class, java.nio.ByteOrder.nativeOrder());

    public enum State {
        /** Usable through its keys. */
        VALID,
        /** Its rkey was invalidated (LOCAL_INV, SEND with invalidate): every use fails until deregistered. */
        INVALID,
        /** Deregistered; its key is retired and never names a region again while remembered. */
        FREE
    }

    final MemorySegment segment;
    final long address;
    final long length;
    final int access;
    final Object protectionDomain;
    int lkey;
    int rkey;
    public State state = State.VALID;
    /** Memory windows bound to it (rxe {@code num_mw}): while any is, it cannot be deregistered. */
    int boundWindows;

    MemoryRegion(MemorySegment segment, int access, Object protectionDomain) {
        this(segment, segment.address(), access, protectionDomain);
    }

    /** A region the device addresses at {@code iova} rather than at the memory's own address. */
    MemoryRegion(MemorySegment segment, long iova, int access, Object protectionDomain) {
        this.segment = segment;
        this.address = iova;
        this.length = segment.byteSize();
        this.access = access;
        this.protectionDomain = protectionDomain;
    }

    /** {@return the address the device knows the region by: its IOVA} */
    public long address() {
        return address;
    }

    boolean allows(int accessBit) {
        return (access & accessBit) != 0;
    }

    /** rxe_mr.c: a region gets an rkey only when some remote access is allowed; otherwise 0. */
    static boolean allowsRemoteAccess(int access) {
        return (access & (AccessFlag.REMOTE_READ.bit() | AccessFlag.REMOTE_WRITE.bit()
                | AccessFlag.REMOTE_ATOMIC.bit())) != 0;
    }

    /** True when [va, va + len) lies inside the region (unsigned arithmetic, no overflow). */
    boolean contains(long va, long len) {
        return rangeContains(address, length, va, len);
    }

    /** True when [va, va + len) lies inside [base, base + size) (unsigned arithmetic, no overflow). */
    static boolean rangeContains(long base, long size, long va, long len) {
        long offset = va - base;
        return Long.compareUnsigned(va, base) >= 0 && Long.compareUnsigned(offset, size) <= 0
                && Long.compareUnsigned(len, size - offset) <= 0;
    }

    long offsetOf(long va) {
        return va - address;
    }

    /** Copies {@code length} bytes at {@code va} (checked to lie inside) into {@code dst}; false if they cannot be read. */
    public boolean load(long va, byte[] dst, int dstOffset, int length) {
        if (state != State.VALID) {
            return false;
        }
        try {
            MemorySegment.copy(segment, ValueLayout.JAVA_BYTE, offsetOf(va), dst, dstOffset, length);
            return true;
        } catch (RuntimeException unreachable) {
            return false;
        }
    }

    /**
     * Points {@code into} at the {@code length} bytes at {@code va} (checked to lie inside), for a frame to carry
     * them by reference ({@link PayloadReference}) instead of a {@link #load}: false, as {@code load} would answer,
     * if they cannot be read now — the region no longer VALID, its arena closed, its memory confined to
     * another thread.
     */
    public boolean reference(long va, int length, PayloadReference into, int frameOffset) {
        if (!isReadable() || !segment.isAccessibleBy(Thread.currentThread())) {
            return false;
        }
        into.set(this, offsetOf(va), frameOffset, length);
        return true;
    }

    @Override
    public MemorySegment segment() {
        return segment;
    }

    /** Registered and valid, its arena open: a frame that left with a payload here may still be placed from it. */
    @Override
    public boolean isReadable() {
        return state == State.VALID && segment.scope().isAlive();
    }

    /**
     * Copies {@code length} bytes of {@code src} from {@code srcOffset} to {@code va} (checked to lie inside): the
     * placement of a payload that came by reference. False if they cannot be written — or read, the source's
     * arena closed on the way.
     */
    public boolean store(long va, MemorySegment src, long srcOffset, int length) {
        if (state != State.VALID) {
            return false;
        }
        try {
            MemorySegment.copy(src, srcOffset, segment, offsetOf(va), length);
            return true;
        } catch (RuntimeException unreachable) {
            return false;
        }
    }

    /** Copies {@code length} bytes of {@code src} to {@code va} (checked to lie inside); false if they cannot be written. */
    public boolean store(long va, byte[] src, int srcOffset, int length) {
        if (state != State.VALID) {
            return false;
        }
        try {
            MemorySegment.copy(src, srcOffset, segment, ValueLayout.JAVA_BYTE, offsetOf(va), length);
            return true;
        } catch (RuntimeException unreachable) {
            return false;
        }
    }

    /**
     * An 8-byte atomic at {@code va} (8-aligned as an IOVA: the responder checked, IBTA 9.4.5): compare
     * and swap, or fetch and add; the value found goes to {@code original[0]}. False if the memory
     * cannot be touched.
     *
     * <p>The IOVA is aligned but the native address need not be: {@code ibv_reg_mr_iova} may map an
     * aligned IOVA onto memory at any address. A CPU atomic needs an aligned address, so there the
     * operation is a plain read-modify-write, done under the RNIC's lock like every access the RNIC
     * makes. That is exactly the atomicity the device promises (IBV_ATOMIC_HCA: atomic against this
     * device's other atomics, not the CPU's), and what rxe gives for every atomic: it reads and writes
     * under its {@code atomic_ops_lock} (rxe_mr.c) rather than with CPU atomics.
     */
    public boolean atomic(long va, boolean compareSwap, long compareOrAdd, long swap, long[] original) {
        if (state != State.VALID) {
            return false;
        }
        long offset = offsetOf(va);
        try {
            if ((segment.address() + offset & 7) == 0) {
                long value;
                if (compareSwap) {
                    do {
                        value = (long) ALIGNED_LONG.getVolatile(segment, offset);
                    } while (value == compareOrAdd && !ALIGNED_LONG.compareAndSet(segment, offset, value, swap));
                } else {
                    value = (long) ALIGNED_LONG.getAndAdd(segment, offset, compareOrAdd);
                }
                original[0] = value;
            } else {
                long value = segment.get(ValueLayout.JAVA_LONG_UNALIGNED, offset);
                if (!compareSwap || value == compareOrAdd) {
                    segment.set(ValueLayout.JAVA_LONG_UNALIGNED, offset, compareSwap ? swap : value + compareOrAdd);
                }
                original[0] = value;
            }
            return true;
        } catch (RuntimeException unreachable) {
            return false;
        }
    }

    /**
     * IBTA 1.5 ATOMIC WRITE: the 8 bytes at {@code src[srcOffset]} stored at {@code va} as one unit, with
     * release ordering (rxe_resp.c atomic_write_reply: {@code smp_store_release}, after all prior operations).
     * As for {@link #atomic}, an aligned IOVA over an unaligned address is a plain store under the RNIC's lock.
     * False if the memory cannot be touched.
     */
    public boolean atomicWrite(long va, byte[] src, int srcOffset) {
        if (state != State.VALID) {
            return false;
        }
        long offset = offsetOf(va);
        long value = (long) HOST_ORDER_LONG_IN_BYTES.get(src, srcOffset);
        try {
            if ((segment.address() + offset & 7) == 0) {
                ALIGNED_LONG.setRelease(segment, offset, value);
            } else {
                segment.set(ValueLayout.JAVA_LONG_UNALIGNED, offset, value);
            }
            return true;
        } catch (RuntimeException unreachable) {
            return false;
        }
    }
}
