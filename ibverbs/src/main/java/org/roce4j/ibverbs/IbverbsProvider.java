package org.roce4j.ibverbs;

import java.util.List;
import java.util.function.Supplier;

import org.roce4j.cm.EventChannel;
import org.roce4j.verbs.Device;
import org.roce4j.verbs.Errno;
import org.roce4j.verbs.VerbsException;
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
 *
 * <p>The connection manager ({@link #createEventChannel()}) is librdmacm.so.1, loaded on first use
 * beside libibverbs; without it {@link #whyNoConnectionManager()} says why and createEventChannel is
 * ENOSYS.
 */
public final class IbverbsProvider implements VerbsProvider {
    public static final String NAME = "ibverbs";
    /** System property naming the library to load instead of {@value LibIbverbs#DEFAULT_LIBRARY}. */
    public static final String LIBRARY_PROPERTY = "roce4j.ibverbs.library";
    /** System property naming the library to load instead of {@value LibRdmacm#DEFAULT_LIBRARY}. */
    public static final String RDMACM_LIBRARY_PROPERTY = "roce4j.rdmacm.library";

    private static final class Holder {
        static final Discovery DISCOVERY = Discovery.discover(
                System.getProperty(LIBRARY_PROPERTY, LibIbverbs.DEFAULT_LIBRARY));
    }

    private static final class CmHolder {
        static final CmRuntime.Loaded CM = CmRuntime.load(
                System.getProperty(RDMACM_LIBRARY_PROPERTY, LibRdmacm.DEFAULT_LIBRARY), Holder.DISCOVERY);
    }

    private final Supplier<CmRuntime.Loaded> cm;

    /** The provider ServiceLoader makes: libibverbs and librdmacm as the system properties name them. */
    public IbverbsProvider() {
        this(() -> CmHolder.CM);
    }

    /** A provider whose connection manager is what {@code cm} loaded (tests: a missing library). */
    IbverbsProvider(Supplier<CmRuntime.Loaded> cm) {
        this.cm = cm;
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

    /**
     * {@code rdma_create_event_channel}: its errno when it fails (ENODEV where the kernel has no RDMA
     * device); ENOSYS, saying why, when librdmacm could not be loaded.
     */
    @Override
    public EventChannel createEventChannel() {
        CmRuntime.Loaded loaded = cm.get();
        if (loaded.runtime() == null) {
            throw new VerbsException(Errno.ENOSYS, "rdma_create_event_channel: " + loaded.whyNot());
        }
        return IbvEventChannel.create(loaded.runtime());
    }

    @Override
    public String whyNoConnectionManager() {
        return cm.get().whyNot();
    }

    /** One line: the devices found, or why there are none (no library, ENOSYS, no device, …). */
    public static String diagnostic() {
        return Holder.DISCOVERY.diagnostic();
    }
}
