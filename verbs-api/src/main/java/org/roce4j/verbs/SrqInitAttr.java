package org.roce4j.verbs;

import org.roce4j.verbs.spi.ArgumentChecks;

/**
 * What {@link Pd#createSrq} needs: {@code struct ibv_srq_init_attr}.
 *
 * @param maxWr    receive WQEs it holds
 * @param maxSge   SGEs per receive WQE
 * @param srqLimit raise {@link AsyncEventType#SRQ_LIMIT_REACHED} when fewer WQEs remain (0 = disarmed)
 */
public record SrqInitAttr(int maxWr, int maxSge, int srqLimit) {
    /** Checks that no count is negative: {@link VerbsException} EINVAL. */
    public SrqInitAttr {
        ArgumentChecks.requireNonNegative(maxWr, "maxWr");
        ArgumentChecks.requireNonNegative(maxSge, "maxSge");
        ArgumentChecks.requireNonNegative(srqLimit, "srqLimit");
    }
}
