package org.roce4j.verbs;

import java.util.Objects;
import java.util.Set;

/**
 * What a window is bound to: {@code struct ibv_mw_bind_info}. {@code length} 0 with a region unbinds a
 * type 1 window (IBTA 10.6.7.2.2).
 *
 * @param mr             the region (must allow {@link AccessFlag#MW_BIND}), or null only with address and length 0
 * @param addr           the window's first byte, as the region is addressed
 * @param length         how many bytes
 * @param mwAccessFlags  the window's rights: REMOTE_READ, REMOTE_WRITE, REMOTE_ATOMIC (the last two need the
 *                       region's LOCAL_WRITE, IBTA C10-74)
 */
public record MwBindInfo(Mr mr, long addr, long length, Set<AccessFlag> mwAccessFlags) {
    /** Copies the rights. */
    public MwBindInfo {
        mwAccessFlags = Set.copyOf(Objects.requireNonNull(mwAccessFlags, "mwAccessFlags"));
    }
}
