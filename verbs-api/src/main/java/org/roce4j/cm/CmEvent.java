package org.roce4j.cm;

import java.util.Optional;

/**
 * One event of an {@link EventChannel}: {@code struct rdma_cm_event}. Every event must be
 * acknowledged ({@code rdma_ack_cm_event}) — {@link #ack()}, or {@link #close()} in a
 * try-with-resources block; an id cannot be destroyed while events of its own are unacknowledged.
 *
 * <pre>{@code
 * try (CmEvent event = channel.getEvent(Duration.ofSeconds(5)).orElseThrow()) {
 *     if (event.type() == CmEventType.CONNECT_REQUEST) { CmId child = event.id(); ... }
 * }
 * }</pre>
 */
public interface CmEvent extends AutoCloseable {
    /** {@return what happened} */
    CmEventType type();

    /**
     * {@return the id the event is about; for {@link CmEventType#CONNECT_REQUEST} the new id of the
     * incoming connection, which the application accepts, rejects or destroys}
     */
    CmId id();

    /** {@return for a CONNECT_REQUEST the listening id it arrived on; otherwise empty} */
    Optional<CmId> listenId();

    /**
     * {@return the event's status: 0 on success; a negative errno for ADDR_ERROR, ROUTE_ERROR,
     * UNREACHABLE (−ETIMEDOUT), CONNECT_ERROR; the IBTA REJ reason for REJECTED (8: invalid service ID,
     * 28: consumer reject)}
     */
    int status();

    /** {@return the connection parameters of CONNECT_REQUEST, CONNECT_RESPONSE, ESTABLISHED, REJECTED (RC/UC ids)} */
    Optional<ConnParam> conn();

    /** {@return the datagram parameters of a UD id's CONNECT_REQUEST or ESTABLISHED} */
    Optional<UdParam> ud();

    /**
     * {@return for MULTICAST_JOIN and MULTICAST_ERROR the context given to {@link CmId#joinMulticast}
     * (librdmacm puts it in {@code param.ud.private_data}); otherwise empty}
     */
    default Optional<Object> multicastContext() {
        return Optional.empty();
    }

    /** {@return the peer's private data carried by this event (empty when none), with rdma_cm's header removed} */
    default byte[] privateData() {
        return conn().map(ConnParam::privateData).or(() -> ud().map(UdParam::privateData)).orElseGet(() -> new byte[0]);
    }

    /**
     * {@code rdma_ack_cm_event}: done with the event.
     *
     * @throws org.roce4j.verbs.VerbsException EINVAL when the event was acknowledged before
     */
    void ack();

    /** {@return whether {@link #ack()} was called} */
    boolean isAcked();

    /** Acknowledges the event unless that was done already. */
    @Override
    default void close() {
        if (!isAcked()) {
            ack();
        }
    }
}
