package org.roce4j.emulator;

import java.lang.foreign.MemorySegment;

import org.roce4j.verbs.AccessFlag;

/**
 * The RNIC's record of a registered region, like rxe's {@code struct rxe_mr}: the memory, the keys,
 * the access rights, the protection domain (compared by identity), and whether it may still be used.
 */
final class MemoryRegion {
    enum State {
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
    State state = State.VALID;

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
        long offset = va - address;
        return Long.compareUnsigned(va, address) >= 0 && Long.compareUnsigned(offset, length) <= 0
                && Long.compareUnsigned(len, length - offset) <= 0;
    }

    long offsetOf(long va) {
        return va - address;
    }
}
