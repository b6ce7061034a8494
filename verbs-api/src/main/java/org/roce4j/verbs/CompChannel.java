package org.roce4j.verbs;

import java.time.Duration;
import java.util.Optional;

/** A completion event channel: {@code struct ibv_comp_channel}. */
public interface CompChannel extends AutoCloseable {
    /** {@return the context the channel was created on} */
    Context context();

    /**
     * {@return the CQ of the next completion event, waiting up to {@code timeout}: {@code ibv_get_cq_event}}.
     * Every event returned must be acknowledged with {@link #ackCqEvents} before the CQ is destroyed.
     *
     * @param timeout how long to wait
     */
    Optional<Cq> getCqEvent(Duration timeout);

    /**
     * {@code ibv_ack_cq_events}: acknowledges events got from {@link #getCqEvent}.
     *
     * @param cq     the CQ they were for
     * @param events how many
     */
    void ackCqEvents(Cq cq, int events);

    /** {@code ibv_destroy_comp_channel}; EBUSY while CQs still use it. */
    @Override
    void close();
}
