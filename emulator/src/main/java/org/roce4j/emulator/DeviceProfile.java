package org.roce4j.emulator;

/**
 * Whose rules an emulated device follows where devices differ: the one place that decides how a
 * modelled device departs from the default (DESIGN.md §4; issue 15 adds its profiles here).
 * Behaviour code asks the profile a question about the rule, never which profile or device it is.
 *
 * <p>Every profile reports and enforces the limits of Linux rxe ({@code rxe_param.h}, kept in the
 * verbs room's {@code DeviceLimits}); a profile that changes one adds it here, and the check that
 * enforces it asks the profile.
 */
public enum DeviceProfile {
    /** The specification, and the default: retry_cnt 7 means seven retries (IBTA 9.7.6.1.3, C9-141). */
    IBTA(false),
    /**
     * Linux Soft-RoCE ({@code rdma_rxe}): retry_cnt 7 retries forever, as {@code rxe_comp.c}
     * {@code rxe_completer} does ({@code if (qp->comp.retry_cnt != 7) qp->comp.retry_cnt--}).
     */
    RXE(true);

    private final boolean retryCountSevenIsInfinite;

    DeviceProfile(boolean retryCountSevenIsInfinite) {
        this.retryCountSevenIsInfinite = retryCountSevenIsInfinite;
    }

    /**
     * {@return whether a QP whose retry_cnt is {@code retryCnt} goes back forever after timeouts and
     * sequence NAKs, its retries never running out} rnr_retry 7 is infinite on every device (IBTA
     * 9.7.5.2.8); this is retry_cnt.
     */
    public boolean retriesForever(int retryCnt) {
        return retryCnt == 7 && retryCountSevenIsInfinite;
    }
}
