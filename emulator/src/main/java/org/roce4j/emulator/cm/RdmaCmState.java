package org.roce4j.emulator.cm;

/** An rdma_cm id's state: cma.c's {@code enum rdma_cm_state}. */
enum RdmaCmState {
    IDLE,
    ADDR_QUERY,
    ADDR_RESOLVED,
    ROUTE_QUERY,
    ROUTE_RESOLVED,
    CONNECT,
    DISCONNECT,
    ADDR_BOUND,
    LISTEN,
    DESTROYING
}
