package org.roce4j.emulator.verbs;

import java.util.ArrayDeque;

import org.roce4j.emulator.DeviceModel;
import org.roce4j.emulator.Quirk;
import org.roce4j.verbs.AccessFlag;
import org.roce4j.verbs.Errno;
import org.roce4j.verbs.MwType;
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
 *
 * <p>Memory windows share the key space (IBTA 10.6.7: an R_Key names a region or a window): a window
 * owns the 256 keys of its {@linkplain MemoryWindow#family family} (a bind changes the low byte, as
 * {@code ibv_inc_rkey}), which no region key ever falls in. A remote key of a window's family is
 * checked as rxe_mw.c {@code rxe_lookup_mw} checks it (exact key, PD, type 2: the QP it was bound by,
 * bound, rights, state), then the window's bounds and the state of the region behind it.
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
        NOT_INVALIDATABLE,
        /** A type 2 window used through another QP than the one it was bound by. */
        WRONG_QP
    }

    /** Deregistered keys remembered, so that none of them is issued again while remembered. */
    static final int RETIRED_REMEMBERED = 1 << 16;
    /** What a retired key maps to: a region no key names (its lkey is 0). */
    private static final MemoryRegion RETIRED = new MemoryRegion(java.lang.foreign.MemorySegment.NULL, 0, null);

    private final RegionsByKey<MemoryRegion> byKey = new RegionsByKey<>();
    /** Windows by {@link MemoryWindow#family}. */
    private final RegionsByKey<MemoryWindow> windows = new RegionsByKey<>();
    /** Whether a region without remote rights gets rkey 0 rather than its lkey. */
    private final boolean rkeyOnlyWithRemoteRights;
    /** ENOMEM past this many live windows: the device's max_mw. */
    private final int maxWindows;
    private int liveWindows;
    private final ArrayDeque<Integer> retired = new ArrayDeque<>();
    private final KeySource keys;
    private int live;
    private final int maxRegions;

    /** Whether LOCAL_INV and SEND_WITH_INV may invalidate a region from ibv_reg_mr (IBTA 10.6.5). */
    private final boolean ordinaryRegionsInvalidate;
    /** Whether a remote access through a window is held to the window's bounds (IBTA 10.6.7) or only its region's. */
    private final boolean windowBoundsChecked;

    public MemoryRegionTable(int maxRegions, KeySource keys) {
        this(maxRegions, keys, org.roce4j.emulator.DeviceProfile.LINUX.model());
    }

    /** A table with the rules of {@code model}'s quirks. */
    public MemoryRegionTable(int maxRegions, KeySource keys, DeviceModel model) {
        this.maxRegions = maxRegions;
        this.keys = keys;
        // rxe_mr.c rxe_invalidate_mr: an MR whose type is not IB_MR_TYPE_MEM_REG (fast registration) is -EINVAL.
        this.ordinaryRegionsInvalidate = !model.has(Quirk.ORDINARY_MRS_CANNOT_BE_INVALIDATED);
        this.windowBoundsChecked = !model.has(Quirk.WINDOW_ACCESS_CHECKED_AGAINST_ITS_REGION_ONLY);
        this.maxWindows = model.limits().maxMw();
        this.rkeyOnlyWithRemoteRights = model.has(Quirk.RKEY_ZERO_WITHOUT_REMOTE_ACCESS);
    }

    /** The rkey of a region keyed {@code key}: the key itself (mlx5, rxe since 6.2) or, for rxe 6.1, 0 without remote rights. */
    private int rkeyFor(MemoryRegion region, int key) {
        return rkeyOnlyWithRemoteRights && !MemoryRegion.allowsRemoteAccess(region.access) ? 0 : key;
    }

    /** Gives the region a key from the key source: its lkey, and its rkey ({@link #rkeyFor}). */
    void register(MemoryRegion region) {
        if (live >= maxRegions) {
            throw new VerbsException(Errno.ENOMEM, "ibv_reg_mr: the device's " + maxRegions + " MRs are in use");
        }
        // neither live nor remembered as retired, nor of a window's family
        int key = keys.nextMemoryKey(k -> byKey.contains(k) || windows.contains(MemoryWindow.family(k)));
        region.lkey = key;
        region.rkey = rkeyFor(region, key);
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
        replacement.rkey = rkeyFor(replacement, key);
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
     * the QP, access right, bounds (IBTA 10.6.3.3); a window's key as {@code rxe_lookup_mw} (see the class
     * comment). Zero-length accesses are not checked (IBTA 9.4.1.1, rxe {@code check_rkey}): the caller
     * skips them.
     *
     * @param qp the QP the request arrived on (a type 2 window serves only the QP it was bound by)
     */
    public Check checkRemote(int rkey, Object pd, Object qp, int accessBit, long va, long length) {
        MemoryWindow window = windows.get(MemoryWindow.family(rkey));
        if (window != null) {
            return checkWindow(window, rkey, pd, qp, accessBit, va, length);
        }
        MemoryRegion region = find(rkey);
        if (region != null && region.rkey != rkey) {
            return Check.NO_SUCH_KEY;
        }
        return check(region, pd, accessBit, va, length);
    }

    /**
     * What a request's VA is an offset from under {@code rkey}: the start of the zero-based window the key names
     * (IBTA 10.6.7.1: its first byte is VA 0), else 0 — the VA is the address itself.
     */
    public long zeroBasedOffset(int rkey) {
        MemoryWindow window = windows.get(MemoryWindow.family(rkey));
        return window != null && window.rkey == rkey && window.zeroBased() ? window.address : 0;
    }

    /** The region a remote key reaches: its own, or the one behind its window; null for neither. */
    public MemoryRegion remoteRegion(int rkey) {
        MemoryWindow window = windows.get(MemoryWindow.family(rkey));
        return window != null ? window.region : find(rkey);
    }

    private Check checkWindow(MemoryWindow window, int rkey, Object pd, Object qp, int accessBit, long va,
                              long length) {
        // rxe_mw.c rxe_lookup_mw, in its order.
        if (window.rkey != rkey) {
            return Check.NO_SUCH_KEY;
        }
        if (window.protectionDomain != pd) {
            return Check.WRONG_PD;
        }
        if (window.type == MwType.TYPE_2 && window.boundQp != qp) {
            return Check.WRONG_QP; // IBTA 10.6.7.2.4: a type 2B window serves the QP it was bound by
        }
        if (window.length == 0 || window.state != MemoryWindow.State.VALID) {
            return Check.INVALIDATED;
        }
        if (!window.allows(accessBit)) {
            return Check.ACCESS_DENIED;
        }
        if (windowBoundsChecked && !window.contains(va, length)) {
            return Check.OUT_OF_BOUNDS;
        }
        // rxe_resp.c check_rkey: mr_check_range(mw->mr, ...) -- the region's bounds hold either way; the
        // region's own state too (the default invalidates ordinary MRs: their windows then fail).
        MemoryRegion region = window.region;
        if (region.state != MemoryRegion.State.VALID) {
            return Check.INVALIDATED;
        }
        return region.contains(va, length) ? Check.OK : Check.OUT_OF_BOUNDS;
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
        MemoryWindow window = windows.get(MemoryWindow.family(rkey));
        if (window != null) {
            return invalidateWindow(window, rkey, pd);
        }
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

    /**
     * rxe_mw.c rxe_invalidate_mw: the exact key, a bound window, and type 2 (o10-37.2.26: a type 1 window is
     * not invalidated by LOCAL_INV or SEND_WITH_INV); then it is FREE, bound to nothing. The window's PD must
     * be the QP's, as for a region (IBTA 10.6.7.2.4; rxe does not check it).
     */
    private static Check invalidateWindow(MemoryWindow window, int rkey, Object pd) {
        if (window.rkey != rkey) {
            return Check.NO_SUCH_KEY;
        }
        if (window.state != MemoryWindow.State.VALID) {
            return Check.INVALIDATED; // FREE: rxe would dereference the QP it has not got
        }
        if (window.type == MwType.TYPE_1) {
            return Check.NOT_INVALIDATABLE;
        }
        if (window.protectionDomain != pd) {
            return Check.WRONG_PD;
        }
        window.unbind(MemoryWindow.State.FREE);
        return Check.OK;
    }

    // ---- memory windows ------------------------------------------------------------------------

    /** Gives a new window a key (rxe_mw.c rxe_alloc_mw); ENOMEM past max_mw. */
    void allocate(MemoryWindow window) {
        if (liveWindows >= maxWindows) {
            throw new VerbsException(Errno.ENOMEM, "ibv_alloc_mw: the device's " + maxWindows + " MWs are in use");
        }
        int key = keys.nextMemoryKey(this::familyTaken);
        window.rkey = key;
        windows.put(MemoryWindow.family(key), window);
        liveWindows++;
    }

    /** Whether any key of {@code key}'s family names a region (live or retired) or a window. */
    private boolean familyTaken(int key) {
        int family = MemoryWindow.family(key);
        if (family == 0 || windows.contains(family)) {
            return true;
        }
        for (int b = 0; b < 256; b++) {
            if (byKey.contains(family | b)) {
                return true;
            }
        }
        return false;
    }

    /** rxe_mw.c rxe_dealloc_mw / rxe_mw_cleanup: unbound, and its key family names nothing from now on. */
    void deallocate(MemoryWindow window) {
        if (windows.get(MemoryWindow.family(window.rkey)) == window) {
            windows.remove(MemoryWindow.family(window.rkey));
            liveWindows--;
        }
        window.unbind(MemoryWindow.State.INVALID);
    }

    /**
     * Executes a BIND_MW work request (rxe_mw.c rxe_bind_mw); null when it bound, else why it failed, which
     * completes the work request MW_BIND_ERR.
     *
     * @param postedRkey the window's rkey as the poster's handle held it ({@code wr.mw.mw_rkey})
     * @param newRkey    its low byte becomes the window's key byte
     * @param lkey       the region's lkey
     */
    public String bind(MemoryWindow window, int postedRkey, int newRkey, int lkey, long va, long length, int rights,
                       Object qp, Object qpPd) {
        if (window.state == MemoryWindow.State.INVALID || window.rkey != postedRkey) {
            return "no window has rkey 0x" + Integer.toHexString(postedRkey);
        }
        MemoryRegion region = null;
        if (length != 0) {
            region = find(lkey);
            if (region == null || region.state == MemoryRegion.State.FREE) {
                return "no region has lkey 0x" + Integer.toHexString(lkey);
            }
        }
        if ((rights & ~MemoryWindow.GRANTABLE) != 0) {
            return "rights a window cannot grant";
        }
        String problem = bindProblem(window, region, va, length, rights, qpPd);
        if (problem != null) {
            return problem;
        }
        window.bind(newRkey, region, va, length, rights, qp);
        return null;
    }

    /** rxe_mw.c rxe_check_bind_mw, rule by rule. */
    private static String bindProblem(MemoryWindow window, MemoryRegion region, long va, long length, int rights,
                                      Object qpPd) {
        if (window.type == MwType.TYPE_1 && window.state != MemoryWindow.State.VALID) {
            return "a type 1 window not valid";
        }
        if (window.type == MwType.TYPE_1 && (rights & AccessFlag.ZERO_BASED.bit()) != 0) {
            return "a type 1 window cannot be zero based (o10-36.2.2)";
        }
        if (window.type == MwType.TYPE_2) {
            if (window.state != MemoryWindow.State.FREE) {
                return "a type 2 window already bound: invalidate it first (o10-37.2.30)";
            }
            if (window.protectionDomain != qpPd) {
                return "a type 2 window of another PD than the QP's (C10-72)";
            }
            if (region == null) {
                return "a type 2 window bound to nothing (o10-37.2.40)";
            }
        }
        if (region == null) {
            return null; // a type 1 window unbound: length 0
        }
        if (region.allows(AccessFlag.ZERO_BASED.bit())) {
            return "a zero-based region (rxe_check_bind_mw: no window on one)";
        }
        if (!region.allows(AccessFlag.MW_BIND.bit())) {
            return "the region does not allow MW_BIND (C10-73)";
        }
        int writes = AccessFlag.REMOTE_WRITE.bit() | AccessFlag.REMOTE_ATOMIC.bit();
        if ((rights & writes) != 0 && !region.allows(AccessFlag.LOCAL_WRITE.bit())) {
            return "remote write or atomic rights on a region without LOCAL_WRITE (C10-74)";
        }
        if ((rights & AccessFlag.ZERO_BASED.bit()) != 0) {
            // C10-75 as rxe_check_bind_mw reads it for a zero-based window: no longer than the region; the address
            // (the region byte at the window's VA 0) is not checked here, every access is (its region's bounds).
            return Long.compareUnsigned(length, region.length) > 0 ? "a zero-based window longer than its region (C10-75)" : null;
        }
        if (!region.contains(va, length)) {
            return "the window reaches outside its region (C10-75)";
        }
        return null;
    }
}
