package org.roce4j.verbs;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.ServiceLoader;

import org.roce4j.verbs.spi.VerbsProvider;

/**
 * Where an application starts: the providers on the class path and their devices.
 *
 * <pre>{@code
 * Device device = Verbs.provider().devices().getFirst();   // -Droce4j.provider=emulator|ibverbs
 * try (Context context = device.open(); Pd pd = context.allocPd()) { ... }
 * }</pre>
 */
public final class Verbs {
    /** The system property that picks the provider. */
    public static final String PROVIDER_PROPERTY = "roce4j.provider";

    private Verbs() {
    }

    /** {@return all providers found by {@link ServiceLoader}, available or not} */
    public static List<VerbsProvider> providers() {
        List<VerbsProvider> providers = new ArrayList<>();
        ServiceLoader.load(VerbsProvider.class).forEach(providers::add);
        return providers;
    }

    /**
     * {@return the provider with this name, if it is on the class path}
     *
     * @param name e.g. {@code emulator} or {@code ibverbs}
     */
    public static Optional<VerbsProvider> provider(String name) {
        return providers().stream().filter(p -> p.name().equals(name)).findFirst();
    }

    /**
     * {@return the provider named by the system property {@value #PROVIDER_PROPERTY}; without it, the first available provider}
     *
     * @throws VerbsException ENODEV when the named one is missing or unavailable, or none is available
     */
    public static VerbsProvider provider() {
        String wanted = System.getProperty(PROVIDER_PROPERTY);
        List<VerbsProvider> providers = providers();
        if (wanted != null && !wanted.isBlank()) {
            VerbsProvider named = providers.stream().filter(p -> p.name().equals(wanted)).findFirst()
                    .orElseThrow(() -> new VerbsException(Errno.ENODEV, "no Verbs provider named '" + wanted
                            + "' on the class path (found " + names(providers) + ")"));
            if (!named.isAvailable()) {
                throw new VerbsException(Errno.ENODEV, "Verbs provider '" + wanted + "' is not available here: "
                        + named.whyUnavailable());
            }
            return named;
        }
        return providers.stream().filter(VerbsProvider::isAvailable).findFirst()
                .orElseThrow(() -> new VerbsException(Errno.ENODEV,
                        "no available Verbs provider on the class path (found " + names(providers) + ")"));
    }

    /** {@return every device of every available provider: {@code ibv_get_device_list} across backends} */
    public static List<Device> devices() {
        List<Device> devices = new ArrayList<>();
        for (VerbsProvider provider : providers()) {
            if (provider.isAvailable()) {
                devices.addAll(provider.devices());
            }
        }
        return devices;
    }

    private static List<String> names(List<VerbsProvider> providers) {
        return providers.stream().map(VerbsProvider::name).toList();
    }
}
