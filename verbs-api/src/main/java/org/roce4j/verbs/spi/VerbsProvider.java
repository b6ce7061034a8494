package org.roce4j.verbs.spi;

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
}
