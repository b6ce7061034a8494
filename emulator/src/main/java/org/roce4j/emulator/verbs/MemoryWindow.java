package org.roce4j.emulator.verbs;

import org.roce4j.verbs.AccessFlag;
import org.roce4j.verbs.MwType;

/**
 * The RNIC's record of a memory window, like rxe's {@code struct rxe_mw}: its type, protection domain
 * and rkey, and, while bound, the region, range and rights it grants and (type 2) the QP it is bound
 * to. The {@link MemoryRegionTable} owns every change of it: bind, invalidate, deallocate.
 */
public final class MemoryWindow {
    /** rxe_verbs.h {@code enum rxe_mw_state}. */
    enum State {
        /** Usable (a type 1 window from allocation on; a type 2 window once bound). */
        VALID,
        /** A type 2 window not bound: allocated, or invalidated (IBTA 10.6.7.2.4). */
        FREE,
        /** Deallocated. */
        INVALID
    }

    final MwType type;
    final Object protectionDomain;
    int rkey;
    State state;
    /** The bound region, or null (a type 1 window bound with length 0 is bound to nothing). */
    MemoryRegion region;
    long address;
    long length;
    int access;
    /** Type 2: the QP it was bound by, the only one that may use it (IBTA 10.6.7.2.4); null otherwise. */
    Object boundQp;

    MemoryWindow(MwType type, Object protectionDomain) {
        this.type = type;
        this.protectionDomain = protectionDomain;
        // rxe_mw.c rxe_alloc_mw: a type 2 window starts FREE, a type 1 window VALID (but with length 0).
        this.state = type == MwType.TYPE_2 ? State.FREE : State.VALID;
    }

    /** The RNIC's record behind an API handle that {@code WorkRequestChecks} accepted (an open window of the QP's context). */
    public static MemoryWindow of(org.roce4j.verbs.Mw handle) {
        return ((EmulatedMw) handle).window;
    }

    /** The key whose low byte a bind may change: the window's slot (rxe: {@code rkey >> 8}, the pool index). */
    static int family(int key) {
        return key & ~0xFF;
    }

    /** Binds, after {@link MemoryRegionTable#bind} checked everything: rxe_mw.c {@code rxe_do_bind_mw}. */
    void bind(int newRkey, MemoryRegion target, long va, long len, int rights, Object qp) {
        rkey = family(rkey) | (newRkey & 0xFF);
        access = rights;
        state = State.VALID;
        address = va;
        length = len;
        unbindRegion();
        if (len != 0) {
            region = target;
            target.boundWindows++;
        }
        if (type == MwType.TYPE_2) {
            boundQp = qp;
        }
    }

    /** rxe_mw.c {@code rxe_do_invalidate_mw} and {@code rxe_mw_cleanup}: bound to nothing, in {@code next}. */
    void unbind(State next) {
        unbindRegion();
        boundQp = null;
        access = 0;
        address = 0;
        length = 0;
        state = next;
    }

    private void unbindRegion() {
        if (region != null) {
            region.boundWindows--;
            region = null;
        }
    }

    /** Bound zero-based: a request's VA is an offset from {@link #address} (IBTA 10.6.7.1). */
    boolean zeroBased() {
        return (access & AccessFlag.ZERO_BASED.bit()) != 0;
    }

    boolean allows(int accessBit) {
        return (access & accessBit) == accessBit;
    }

    /** True when [va, va + len) lies inside the window (unsigned arithmetic, no overflow). */
    boolean contains(long va, long len) {
        return MemoryRegion.rangeContains(address, length, va, len);
    }

    /** The rights a window may be bound with (rxe_mw.c: RXE_ACCESS_SUPPORTED_MW), ZERO_BASED among them. */
    static final int GRANTABLE = AccessFlag.REMOTE_READ.bit() | AccessFlag.REMOTE_WRITE.bit()
            | AccessFlag.REMOTE_ATOMIC.bit() | AccessFlag.LOCAL_WRITE.bit() | AccessFlag.MW_BIND.bit()
            | AccessFlag.ZERO_BASED.bit();
}
