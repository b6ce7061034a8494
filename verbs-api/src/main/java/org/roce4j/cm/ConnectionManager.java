package org.roce4j.cm;

/**
 * Something that makes rdma_cm event channels: a backend's connection manager. The selected
 * provider's is {@link RdmaCm#connectionManager()}; the emulator also offers one per fabric of one's
 * own, so that code written against this interface (such as {@link RdmaConnection}) runs on a
 * test's fabric as well as on the system's devices.
 */
@FunctionalInterface
public interface ConnectionManager {
    /**
     * {@return a new event channel: {@code rdma_create_event_channel}}
     *
     * @throws org.roce4j.verbs.VerbsException ENOSYS when the backend has no connection manager
     */
    EventChannel createEventChannel();
}
