package org.roce4j.verbs;

import java.time.Duration;
import java.util.Optional;

/** A completion event channel: {@code struct ibv_comp_channel}. */
public interface CompChannel extends AutoCloseable {
    Context context();

    /**
     * {@code ibv_get_cq_event}: waits up to {@code timeout} for an armed CQ to report a completion.
     * Every event returned must be acknowledged with {@link #ackCqEvents} before the CQ is destroyed.
     */
    Optional<Cq> getCqEvent(Duration timeout);

    /** {@code ibv_ack_cq_events}. */
    void ackCqEvents(Cq cq, int events);

    /** {@code ibv_destroy_comp_channel}; EBUSY while CQs still use it. */
    @Override
    void close();
}
