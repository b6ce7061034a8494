package org.roce4j.wire;

/** What a message does, independent of transport and of the packet's position in it. */
public enum OperationKind {
    SEND,
    RDMA_WRITE,
    RDMA_READ_REQUEST,
    RDMA_READ_RESPONSE,
    ACKNOWLEDGE,
    ATOMIC,
    ATOMIC_ACKNOWLEDGE,
    FLUSH,
    ATOMIC_WRITE,
    RESYNC,
    CONGESTION_NOTIFICATION;

    /** The direction every packet of this kind flows in. */
    public Direction direction() {
        return switch (this) {
            case RDMA_READ_RESPONSE, ACKNOWLEDGE, ATOMIC_ACKNOWLEDGE -> Direction.RESPONSE;
            case CONGESTION_NOTIFICATION -> Direction.NOTIFICATION;
            default -> Direction.REQUEST;
        };
    }
}
