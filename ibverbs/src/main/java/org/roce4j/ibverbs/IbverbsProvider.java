package org.roce4j.ibverbs;

import java.util.List;

import org.roce4j.verbs.Device;
import org.roce4j.verbs.spi.VerbsProvider;

/**
 * Real RDMA devices through libibverbs ({@code -Droce4j.provider=ibverbs}), called with the Foreign
 * Function &amp; Memory API: no JNI, nothing to compile. Needs {@code --enable-native-access=ALL-UNNAMED}
 * (or the module's name) on the JVM's command line.
 *
 * <p>The library is loaded and {@code ibv_get_device_list} called once, on first use. Where there is
 * no libibverbs, no device, or a kernel without RDMA, {@link #devices()} is empty and
 * {@link #diagnostic()} says why; the provider is then not {@linkplain #isAvailable() available}, so
 * {@code Verbs.provider()} without a name falls back to another backend.
 */
public final class IbverbsProvider implements VerbsProvider {
    public static final String NAME = "ibverbs";
    /** System property naming the library to load instead of {@value LibIbverbs#DEFAULT_LIBRARY}. */
    public static final String LIBRARY_PROPERTY = "roce4j.ibverbs.library";

    private static final class Holder {
        static final Discovery DISCOVERY = Discovery.discover(
                System.getProperty(LIBRARY_PROPERTY, LibIbverbs.DEFAULT_LIBRARY));
    }

    @Override
    public String name() {
        return NAME;
    }

    /** True when libibverbs loaded and lists at least one device. */
    @Override
    public boolean isAvailable() {
        return !Holder.DISCOVERY.devices().isEmpty();
    }

    @Override
    public String whyUnavailable() {
        return isAvailable() ? "" : diagnostic();
    }

    @Override
    public List<Device> devices() {
        return Holder.DISCOVERY.devices();
    }

    /** One line: the devices found, or why there are none (no library, ENOSYS, no device, …). */
    public static String diagnostic() {
        return Holder.DISCOVERY.diagnostic();
    }
}
