package org.roce4j.testkit;

/** Whose rules the emulated RNICs follow where the IBTA specification and Linux Soft-RoCE differ. */
public enum Profile {
    /** The specification: retry_cnt 7 means seven retries (IBTA 9.7.6.1.3). */
    IBTA,
    /**
     * Linux Soft-RoCE ({@code rdma_rxe}): retry_cnt 7 retries forever, as {@code rxe_comp.c} does
     * ({@code if (qp->comp.retry_cnt != 7) qp->comp.retry_cnt--}).
     */
    RXE
}
