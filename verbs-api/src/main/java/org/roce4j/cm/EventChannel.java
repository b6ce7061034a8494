package org.roce4j.cm;

import java.time.Duration;
import java.util.Optional;

/**
 * Where a CM id's events arrive: {@code struct rdma_event_channel}, made with
 * {@link RdmaCm#createEventChannel()}. Events come in the order the CM raised them.
 */
public interface EventChannel extends AutoCloseable {
    /**
     * {@return a new CM id on this channel: {@code rdma_create_id}}
     *
     * @param space   the port space; it picks the QP type ({@link PortSpace#qpType()})
     * @param context anything the application wants to find on the id again ({@code id->context}), or null
     */
    CmId createId(PortSpace space, Object context);

    /**
     * {@return a new CM id with no context: {@code rdma_create_id(channel, &id, NULL, space)}}
     *
     * @param space the port space
     */
    default CmId createId(PortSpace space) {
        return createId(space, null);
    }

    /**
     * {@return the next event, waiting up to {@code timeout} for one: {@code rdma_get_cm_event} on a
     * blocking channel bounded by a {@code poll(2)} of its fd}
     *
     * @param timeout how long to wait; zero looks once
     */
    Optional<CmEvent> getEvent(Duration timeout);

    /** {@return the next event if one is waiting: {@code rdma_get_cm_event} on a non-blocking channel (EAGAIN → empty)} */
    Optional<CmEvent> pollEvent();

    /**
     * {@code rdma_destroy_event_channel}.
     *
     * @throws org.roce4j.verbs.VerbsException EBUSY while ids are still on the channel (librdmacm leaves
     *         that undefined; a Java channel refuses)
     */
    @Override
    void close();
}
