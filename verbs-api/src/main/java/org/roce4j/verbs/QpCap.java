package org.roce4j.verbs;

import org.roce4j.verbs.spi.ArgumentChecks;

/**
 * Queue sizes of a queue pair: {@code struct ibv_qp_cap}. On creation these are requests; the
 * backend may round them up and reports what it granted in {@link Qp#initAttr()}.
 *
 * @param maxSendWr     outstanding send work requests ({@code max_send_wr})
 * @param maxRecvWr     outstanding receive work requests ({@code max_recv_wr})
 * @param maxSendSge    SGEs per send work request ({@code max_send_sge})
 * @param maxRecvSge    SGEs per receive work request ({@code max_recv_sge})
 * @param maxInlineData bytes a send may carry inline ({@code max_inline_data})
 */
public record QpCap(int maxSendWr, int maxRecvWr, int maxSendSge, int maxRecvSge, int maxInlineData) {
    /** Checks that no capacity is negative: {@link VerbsException} EINVAL. */
    public QpCap {
        ArgumentChecks.requireNonNegative(maxSendWr, "maxSendWr");
        ArgumentChecks.requireNonNegative(maxRecvWr, "maxRecvWr");
        ArgumentChecks.requireNonNegative(maxSendSge, "maxSendSge");
        ArgumentChecks.requireNonNegative(maxRecvSge, "maxRecvSge");
        ArgumentChecks.requireNonNegative(maxInlineData, "maxInlineData");
    }

    /**
     * {@return queues of the given depth with one SGE each and no inline data}
     *
     * @param maxSendWr outstanding send work requests
     * @param maxRecvWr outstanding receive work requests
     */
    public static QpCap of(int maxSendWr, int maxRecvWr) {
        return new QpCap(maxSendWr, maxRecvWr, 1, 1, 0);
    }
}
