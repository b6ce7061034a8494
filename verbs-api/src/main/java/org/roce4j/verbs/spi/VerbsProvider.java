package org.roce4j.verbs.spi;

import org.roce4j.cm.EventChannel;
import org.roce4j.verbs.Errno;
import org.roce4j.verbs.VerbsException;

import java.util.List;

import org.roce4j.verbs.Device;

/**
 * A backend of the Verbs API, found with {@link java.util.ServiceLoader}: the emulated RNIC
 * ({@code emulator}) or libibverbs ({@code ibverbs}). Register an implementation in
 * {@code META-INF/services/org.roce4j.verbs.spi.VerbsProvider}.
 */
public interface VerbsProvider {
    /** {@return a short, unique name: what {@code -Droce4j.provider=} selects} */
    String name();

    /** {@return whether the backend can work on this machine (a native library present, …)} */
    default boolean isAvailable() {
        return true;
    }

    /**
     * {@return one line saying why the backend is not available here ("no RDMA devices:
     * ibv_get_device_list failed with ENOSYS …"), or an empty string when it is}
     */
    default String whyUnavailable() {
        return isAvailable() ? "" : "not available on this machine";
    }

    /** {@return its devices, as {@code ibv_get_device_list} would list them} */
    List<Device> devices();

    /**
     * {@return a new rdma_cm event channel ({@code rdma_create_event_channel}) on this backend}
     *
     * @throws VerbsException ENOSYS when the backend has no connection manager
     */
    default EventChannel createEventChannel() {
        throw new VerbsException(Errno.ENOSYS, "rdma_create_event_channel: " + whyNoConnectionManager());
    }

    /**
     * {@return one line saying why this backend has no connection manager here ("librdmacm.so.1 not
     * found …"), or an empty string when {@link #createEventChannel()} works}
     */
    default String whyNoConnectionManager() {
        return "the " + name() + " provider has no RDMA connection manager";
    }
}
