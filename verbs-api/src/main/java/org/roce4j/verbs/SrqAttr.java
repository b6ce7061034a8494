package org.roce4j.verbs;

import org.roce4j.verbs.spi.ArgumentChecks;

/**
 * {@code struct ibv_srq_attr}: as queried, or the values of a modify.
 *
 * @param maxWr    receive WQEs the SRQ holds ({@code max_wr})
 * @param maxSge   SGEs per receive WQE ({@code max_sge})
 * @param srqLimit the limit below which SRQ_LIMIT_REACHED is raised, 0 = disarmed ({@code srq_limit})
 */
public record SrqAttr(int maxWr, int maxSge, int srqLimit) {
    /** Checks that no count is negative: {@link VerbsException} EINVAL. */
    public SrqAttr {
        ArgumentChecks.requireNonNegative(maxWr, "maxWr");
        ArgumentChecks.requireNonNegative(maxSge, "maxSge");
        ArgumentChecks.requireNonNegative(srqLimit, "srqLimit");
    }
}
