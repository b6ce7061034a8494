package org.roce4j.emulator.transport;

/**
 * Where a send WQE is between posting and retiring, named after rxe's {@code enum wqe_state}
 * ({@code rxe_verbs.h}). rxe's {@code wqe_state_processing} (some packets of the message still to
 * send) is {@link #PENDING} here: the requester's cursor, not the WQE, says how far it got.
 */
enum WqeState {
    /** Posted, no packet sent yet (rxe {@code wqe_state_posted}). */
    POSTED,
    /** Some or all packets sent, not yet acknowledged (RC; rxe {@code wqe_state_pending}). */
    PENDING,
    /** Finished: acknowledged (RC), sent (UC/UD), executed (local); waits to retire in order (rxe {@code wqe_state_done}). */
    DONE,
    /** Failed with the WQE's status; the QP goes to error when it retires (rxe {@code wqe_state_error}). */
    ERROR
}
