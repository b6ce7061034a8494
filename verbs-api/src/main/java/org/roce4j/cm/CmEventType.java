package org.roce4j.cm;

import java.util.Optional;

/** What a CM event reports ({@code enum rdma_cm_event_type}), with librdmacm's values. */
public enum CmEventType {
    /** {@code RDMA_CM_EVENT_ADDR_RESOLVED}: {@link CmId#resolveAddr} found the local device and the peer. */
    ADDR_RESOLVED(0),
    /** {@code RDMA_CM_EVENT_ADDR_ERROR}: address resolution failed; status is a negative errno. */
    ADDR_ERROR(1),
    /** {@code RDMA_CM_EVENT_ROUTE_RESOLVED}: {@link CmId#resolveRoute} found the path. */
    ROUTE_RESOLVED(2),
    /** {@code RDMA_CM_EVENT_ROUTE_ERROR}: route resolution failed; status is a negative errno. */
    ROUTE_ERROR(3),
    /** {@code RDMA_CM_EVENT_CONNECT_REQUEST}: a listener got a request; the event's id is the new one. */
    CONNECT_REQUEST(4),
    /**
     * {@code RDMA_CM_EVENT_CONNECT_RESPONSE}: the REP for an id without a QP of {@link CmId#createQp}; the
     * application moves its own QP ({@link CmId#initQpAttributes}) and sends the RTU with {@link CmId#establish}.
     */
    CONNECT_RESPONSE(5),
    /** {@code RDMA_CM_EVENT_CONNECT_ERROR}: the connection could not be set up. */
    CONNECT_ERROR(6),
    /** {@code RDMA_CM_EVENT_UNREACHABLE}: the peer did not answer the CM's retries; status -ETIMEDOUT. */
    UNREACHABLE(7),
    /** {@code RDMA_CM_EVENT_REJECTED}: the peer rejected; status is the IBTA REJ reason (8: invalid service ID). */
    REJECTED(8),
    /** {@code RDMA_CM_EVENT_ESTABLISHED}: the connection is up (UD: the SIDR reply arrived). */
    ESTABLISHED(9),
    /** {@code RDMA_CM_EVENT_DISCONNECTED}: either side disconnected (or the DREQ went unanswered). */
    DISCONNECTED(10),
    /** {@code RDMA_CM_EVENT_DEVICE_REMOVAL}: the id's device went away. */
    DEVICE_REMOVAL(11),
    /** {@code RDMA_CM_EVENT_MULTICAST_JOIN}: a multicast join completed. */
    MULTICAST_JOIN(12),
    /** {@code RDMA_CM_EVENT_MULTICAST_ERROR}: a multicast group failed. */
    MULTICAST_ERROR(13),
    /** {@code RDMA_CM_EVENT_ADDR_CHANGE}: the id's address moved to another device. */
    ADDR_CHANGE(14),
    /** {@code RDMA_CM_EVENT_TIMEWAIT_EXIT}: the QP left timewait after a disconnect and may be reused. */
    TIMEWAIT_EXIT(15);

    private final int value;

    CmEventType(int value) {
        this.value = value;
    }

    /** {@return librdmacm's value} */
    public int value() {
        return value;
    }

    /** {@return the name {@code rdma_event_str} gives, e.g. {@code RDMA_CM_EVENT_ESTABLISHED}} */
    public String cName() {
        return "RDMA_CM_EVENT_" + name();
    }

    /**
     * {@return the event type with this librdmacm value}
     *
     * @param value from 0 to 15
     */
    public static Optional<CmEventType> of(int value) {
        CmEventType[] all = values();
        return value >= 0 && value < all.length ? Optional.of(all[value]) : Optional.empty();
    }
}
