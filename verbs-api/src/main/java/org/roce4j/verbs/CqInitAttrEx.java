package org.roce4j.verbs;

import java.util.EnumSet;
import java.util.Set;

/**
 * What {@link Context#createCqEx} needs: {@code struct ibv_cq_init_attr_ex} without its parent domain and
 * flags (comp_mask 0).
 *
 * @param cqe        the entries it must hold at least
 * @param channel    the completion channel its events go to, or null
 * @param compVector the completion vector, below {@link Context#numCompVectors()}
 * @param wcFlags    the fields its completions carry ({@code wc_flags})
 */
public record CqInitAttrEx(int cqe, CompChannel channel, int compVector, Set<CreateCqWcFlag> wcFlags) {
    /** The set is copied. */
    public CqInitAttrEx {
        wcFlags = wcFlags.isEmpty() ? Set.of() : Set.copyOf(EnumSet.copyOf(wcFlags));
    }

    /**
     * {@return a CQ of {@code cqe} entries, no channel, vector 0, with these fields}
     *
     * @param cqe     the entries
     * @param wcFlags the fields
     */
    public static CqInitAttrEx of(int cqe, Set<CreateCqWcFlag> wcFlags) {
        return new CqInitAttrEx(cqe, null, 0, wcFlags);
    }
}
