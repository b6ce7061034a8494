package org.roce4j.emulator;

import java.util.ArrayDeque;
import java.util.Arrays;

import org.roce4j.verbs.Errno;
import org.roce4j.verbs.VerbsException;

/**
 * A node's memory regions, indexed by key as rxe indexes its MR pool: a key is
 * {@code index << 8 | key byte} (rxe_mr.c {@code rxe_mr_init}); the index finds the slot, the key
 * byte must match, so a stale key of a reused slot fails. Every use is checked in one place, in the
 * order rxe's {@code lookup_mr} and {@code mr_check_range} check: key, state, protection domain,
 * access, bounds.
 */
final class MemoryRegionTable {
    /** The outcome of a key check; anything but OK is a protection or access error. */
    enum Check {
        OK,
        NO_SUCH_KEY,
        INVALIDATED,
        WRONG_PD,
        ACCESS_DENIED,
        OUT_OF_BOUNDS
    }

    /** rxe: RXE_MIN_MR_INDEX; index 0 is never used, so key 0 never names a region. */
    private static final int FIRST_INDEX = 1;

    private MemoryRegion[] slots = new MemoryRegion[16];
    private final ArrayDeque<Integer> freed = new ArrayDeque<>();
    private int nextIndex = FIRST_INDEX;
    private int keyByte;
    private int live;
    private final int maxRegions;

    MemoryRegionTable(int maxRegions) {
        this.maxRegions = maxRegions;
    }

    /** Gives the region an index and key byte; sets its lkey, and its rkey when remote access is allowed. */
    void register(MemoryRegion region) {
        if (live >= maxRegions) {
            throw new VerbsException(Errno.ENOMEM, "ibv_reg_mr: the device's " + maxRegions + " MRs are in use");
        }
        // Reuse the slot freed longest ago (and a new key byte) so that stale keys keep failing.
        int index = freed.size() > 64 || nextIndex >= (1 << 24) ? freed.removeFirst() : nextIndex++;
        if (index >= slots.length) {
            slots = Arrays.copyOf(slots, Math.max(index + 1, slots.length * 2));
        }
        keyByte = (keyByte + 1) & 0xFF;
        int key = index << 8 | keyByte;
        region.lkey = key;
        region.rkey = MemoryRegion.allowsRemoteAccess(region.access) ? key : 0;
        region.state = MemoryRegion.State.VALID;
        slots[index] = region;
        live++;
    }

    void deregister(MemoryRegion region) {
        int index = region.lkey >>> 8;
        if (index < slots.length && slots[index] == region) {
            slots[index] = null;
            freed.addLast(index);
            live--;
        }
        region.state = MemoryRegion.State.FREE;
    }

    int size() {
        return live;
    }

    /** The region a key names (lkey or rkey: they are the same number), or null. */
    MemoryRegion find(int key) {
        int index = key >>> 8;
        if (index < FIRST_INDEX || index >= slots.length) {
            return null;
        }
        MemoryRegion region = slots[index];
        return region != null && region.lkey == key ? region : null;
    }

    /**
     * Checks a local SGE (IBTA 10.6.3.2): the lkey names a valid region of this PD that allows
     * {@code accessBit} (0 for a read of local memory, LOCAL_WRITE to place data) and holds the range.
     */
    Check checkLocal(int lkey, Object pd, int accessBit, long va, long length) {
        MemoryRegion region = find(lkey);
        return check(region, pd, accessBit, va, length);
    }

    /**
     * Checks a remote access (IBTA 10.6.3.3, C9-...: R_Key, PD of the QP, access right, bounds).
     * Zero-length accesses are not checked (IBTA 9.4.1.1, rxe {@code check_rkey}): the caller skips them.
     */
    Check checkRemote(int rkey, Object pd, int accessBit, long va, long length) {
        MemoryRegion region = find(rkey);
        if (region != null && region.rkey != rkey) {
            return Check.NO_SUCH_KEY;
        }
        return check(region, pd, accessBit, va, length);
    }

    private static Check check(MemoryRegion region, Object pd, int accessBit, long va, long length) {
        if (region == null) {
            return Check.NO_SUCH_KEY;
        }
        if (region.state != MemoryRegion.State.VALID) {
            return Check.INVALIDATED;
        }
        if (region.protectionDomain != pd) {
            return Check.WRONG_PD;
        }
        if (accessBit != 0 && !region.allows(accessBit)) {
            return Check.ACCESS_DENIED;
        }
        if (!region.contains(va, length)) {
            return Check.OUT_OF_BOUNDS;
        }
        return Check.OK;
    }

    /**
     * Invalidates the region an rkey names (LOCAL_INV, SEND with invalidate; IBTA 10.6.5): the key
     * must name a region of the same PD that has an rkey. Afterwards every use of it fails with an
     * access error until it is deregistered.
     */
    Check invalidate(int rkey, Object pd) {
        MemoryRegion region = find(rkey);
        if (region == null || region.rkey != rkey || rkey == 0) {
            return Check.NO_SUCH_KEY;
        }
        if (region.state != MemoryRegion.State.VALID) {
            return Check.INVALIDATED;
        }
        if (region.protectionDomain != pd) {
            return Check.WRONG_PD;
        }
        region.state = MemoryRegion.State.INVALID;
        return Check.OK;
    }
}
