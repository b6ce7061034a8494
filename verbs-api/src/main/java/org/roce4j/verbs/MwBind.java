package org.roce4j.verbs;

import java.util.Objects;

/**
 * A type 1 bind: {@code struct ibv_mw_bind}, for {@link Qp#bindMw}.
 *
 * @param wrId      the wr_id of the BIND_MW completion
 * @param sendFlags {@link SendFlag} bits (SIGNALED for a completion on success)
 * @param bindInfo  the region, range and rights
 */
public record MwBind(long wrId, int sendFlags, MwBindInfo bindInfo) {
    /** Checks that there is a bind info. */
    public MwBind {
        Objects.requireNonNull(bindInfo, "bindInfo");
    }

    /**
     * The checks {@code ibv_bind_mw} (an inline function of verbs.h) makes before it calls the provider,
     * so every backend makes them alike: EINVAL for a window that is not type 1 or a range without a
     * region, EPERM for a region of another PD than the window's.
     *
     * @param mw   the window
     * @param bind the bind
     */
    public static void checkIbvBindMw(Mw mw, MwBind bind) {
        MwBindInfo info = bind.bindInfo();
        if (mw.type() != MwType.TYPE_1) {
            throw new VerbsException(Errno.EINVAL, "ibv_bind_mw: binds only type 1 windows (type 2: a BIND_MW work request)");
        }
        if (info.mr() == null && (info.addr() != 0 || info.length() != 0)) {
            throw new VerbsException(Errno.EINVAL, "ibv_bind_mw: an address or length without a region");
        }
        if (info.mr() != null && info.mr().pd() != mw.pd()) {
            throw new VerbsException(Errno.EPERM, "ibv_bind_mw: the region is of another protection domain than the window");
        }
    }
}
