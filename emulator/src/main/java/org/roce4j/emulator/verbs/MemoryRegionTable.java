package org.roce4j.emulator.verbs;

import java.util.ArrayDeque;

import org.roce4j.verbs.Errno;
import org.roce4j.verbs.VerbsException;

/**
 * A node's memory regions, found by key. The key layout comes from the RNIC's {@link KeySource}:
 * counted ({@code index << 8 | key byte}, as rxe's {@code rxe_mr_init}) on the deterministic
 * fabric, 32 random bits wherever frames can come from a real network. The table looks a key up
 * whole in a hash table ({@link RegionsByKey}), so either layout is found in O(1). A deregistered
 * key stays remembered (as retired) for the next {@link #RETIRED_REMEMBERED} deregistrations and is
 * never issued again meanwhile, so a stale key keeps failing; later a random key could repeat it
 * with probability 2^-32 per registration. Key 0 never names a region. Every use is checked in one
 * place, in the order rxe's {@code lookup_mr} and {@code mr_check_range} check: key, state,
 * protection domain, access, bounds.
 */
public final class MemoryRegionTable {
    /** The outcome of a key check; anything but OK is a protection or access error. */
    public enum Check {
        OK,
        NO_SUCH_KEY,
        INVALIDATED,
        WRONG_PD,
        ACCESS_DENIED,
        OUT_OF_BOUNDS,
        /** An ordinary region, on a device that invalidates only memory windows and fast-registration MRs. */
        NOT_INVALIDATABLE
    }

    /** Deregistered keys remembered, so that none of them is issued again while remembered. */
    static final int RETIRED_REMEMBERED = 1 << 16;
    /** What a retired key maps to: a region no key names (its lkey is 0). */
    private static final MemoryRegion RETIRED = new MemoryRegion(java.lang.foreign.MemorySegment.NULL, 0, null);

    private final RegionsByKey byKey = new RegionsByKey();
    private final ArrayDeque<Integer> retired = new ArrayDeque<>();
    private final KeySource keys;
    private int live;
    private final int maxRegions;

    /** Whether LOCAL_INV and SEND_WITH_INV may invalidate a region from ibv_reg_mr (IBTA 10.6.5). */
    private final boolean ordinaryRegionsInvalidate;

    public MemoryRegionTable(int maxRegions, KeySource keys) {
        this(maxRegions, keys, true);
    }

    /**
     * @param ordinaryRegionsInvalidate false for a device that invalidates only memory windows and
     *                                  fast-registration MRs ({@code Quirk.ORDINARY_MRS_CANNOT_BE_INVALIDATED})
     */
    public MemoryRegionTable(int maxRegions, KeySource keys, boolean ordinaryRegionsInvalidate) {
        this.maxRegions = maxRegions;
        this.keys = keys;
        this.ordinaryRegionsInvalidate = ordinaryRegionsInvalidate;
    }

    /** Gives the region a key from the key source; sets its lkey, and its rkey when remote access is allowed. */
    void register(MemoryRegion region) {
        if (live >= maxRegions) {
            throw new VerbsException(Errno.ENOMEM, "ibv_reg_mr: the device's " + maxRegions + " MRs are in use");
        }
        int key = keys.nextMemoryKey(byKey::contains); // neither live nor remembered as retired
        region.lkey = key;
        region.rkey = MemoryRegion.allowsRemoteAccess(region.access) ? key : 0;
        region.state = MemoryRegion.State.VALID;
        byKey.put(key, region);
        live++;
    }

    /**
     * {@code ibv_rereg_mr}: {@code replacement} (the new memory, PD or rights) takes over the old region's
     * key, and the old record is freed, so nothing still holding it (a READ being answered, say) touches the
     * old memory again. The rkey is the key when the new rights allow remote access, 0 otherwise, as at
     * registration.
     */
    void reregister(MemoryRegion old, MemoryRegion replacement) {
        int key = old.lkey;
        replacement.lkey = key;
        replacement.rkey = MemoryRegion.allowsRemoteAccess(replacement.access) ? key : 0;
        replacement.state = MemoryRegion.State.VALID;
        byKey.put(key, replacement);
        old.state = MemoryRegion.State.FREE;
    }

    void deregister(MemoryRegion region) {
        int key = region.lkey;
        if (byKey.get(key) == region) {
            byKey.put(key, RETIRED);
            retired.addLast(key);
            if (retired.size() > RETIRED_REMEMBERED) {
                byKey.remove(retired.removeFirst());
            }
            keys.memoryKeyRetired(key);
            live--;
        }
        region.state = MemoryRegion.State.FREE;
    }

    int size() {
        return live;
    }

    /** The region a key names (lkey or rkey: they are the same number), or null. */
    public MemoryRegion find(int key) {
        MemoryRegion region = byKey.get(key);
        return region != null && region.lkey == key ? region : null;
    }

    /**
     * Checks a local SGE (IBTA 10.6.3.2): the lkey names a valid region of this PD that allows
     * {@code accessBit} (0 for a read of local memory, LOCAL_WRITE to place data) and holds the range.
     */
    public Check checkLocal(int lkey, Object pd, int accessBit, long va, long length) {
        MemoryRegion region = find(lkey);
        return check(region, pd, accessBit, va, length);
    }

    /**
     * Checks a remote access as rxe_resp.c: check_rkey does (lookup_mr, mr_check_range): R_Key, PD of
     * the QP, access right, bounds (IBTA 10.6.3.3).
     * Zero-length accesses are not checked (IBTA 9.4.1.1, rxe {@code check_rkey}): the caller skips them.
     */
    public Check checkRemote(int rkey, Object pd, int accessBit, long va, long length) {
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
    public Check invalidate(int rkey, Object pd) {
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
        if (!ordinaryRegionsInvalidate) {
            // rxe_mr.c rxe_invalidate_mr: an MR whose type is not IB_MR_TYPE_MEM_REG (fast registration) is
            // -EINVAL; every region of this table comes from ibv_reg_mr.
            return Check.NOT_INVALIDATABLE;
        }
        region.state = MemoryRegion.State.INVALID;
        return Check.OK;
    }
}
