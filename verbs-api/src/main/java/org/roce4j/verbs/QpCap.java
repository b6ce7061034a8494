package org.roce4j.verbs;

/**
 * Queue sizes of a queue pair: {@code struct ibv_qp_cap}. On creation these are requests; the
 * backend may round them up and reports what it granted in {@link Qp#initAttr()}.
 */
public record QpCap(int maxSendWr, int maxRecvWr, int maxSendSge, int maxRecvSge, int maxInlineData) {
    public QpCap {
        if (maxSendWr < 0 || maxRecvWr < 0 || maxSendSge < 0 || maxRecvSge < 0 || maxInlineData < 0) {
            throw new IllegalArgumentException("negative queue capacity");
        }
    }

    /** Queues of the given depth with one SGE each and no inline data. */
    public static QpCap of(int maxSendWr, int maxRecvWr) {
        return new QpCap(maxSendWr, maxRecvWr, 1, 1, 0);
    }
}
