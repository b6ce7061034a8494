package org.roce4j.cm;

import java.time.Duration;
import java.util.Objects;
import org.roce4j.verbs.QpCap;

/**
 * What {@link RdmaConnection#connect} and {@link RdmaServer#accept} set up for each connection: the
 * QP's capacities, the CQ's depth (one CQ for sends and receives), the parameters announced in the
 * REQ or REP, and how long each step may take.
 *
 * @param cap     the QP's capacities
 * @param cqDepth the CQ's entries; at least the QP's sends plus receives
 * @param param   what to announce (private data, READ depths, retry counts)
 * @param timeout how long resolution, and then the connection, may take each
 */
public record ConnectionSettings(QpCap cap, int cqDepth, ConnParam param, Duration timeout) {
    /** Requires every part; a CQ too small for the QP is an IllegalArgumentException. */
    public ConnectionSettings {
        Objects.requireNonNull(cap, "cap");
        Objects.requireNonNull(param, "param");
        Objects.requireNonNull(timeout, "timeout");
        if (cqDepth < cap.maxSendWr() + cap.maxRecvWr()) {
            throw new IllegalArgumentException("cqDepth " + cqDepth + " cannot hold " + cap.maxSendWr()
                    + " sends and " + cap.maxRecvWr() + " receives");
        }
    }

    /** {@return 16 sends and 16 receives of one SGE each, a 32-entry CQ, rping's parameters, 2 s per step} */
    public static ConnectionSettings defaults() {
        return new ConnectionSettings(QpCap.of(16, 16), 32, ConnParam.defaults(), Duration.ofSeconds(2));
    }

    /**
     * {@return a copy with this private data in the REQ or REP}
     *
     * @param privateData the private data
     */
    public ConnectionSettings withPrivateData(byte[] privateData) {
        return new ConnectionSettings(cap, cqDepth, param.withPrivateData(privateData), timeout);
    }

    /**
     * {@return a copy with these capacities and a CQ that holds them}
     *
     * @param qpCap the QP's capacities
     */
    public ConnectionSettings withCap(QpCap qpCap) {
        return new ConnectionSettings(qpCap, Math.max(cqDepth, qpCap.maxSendWr() + qpCap.maxRecvWr()), param, timeout);
    }

    /**
     * {@return a copy where each step may take this long}
     *
     * @param stepTimeout the time per step
     */
    public ConnectionSettings withTimeout(Duration stepTimeout) {
        return new ConnectionSettings(cap, cqDepth, param, stepTimeout);
    }
}
