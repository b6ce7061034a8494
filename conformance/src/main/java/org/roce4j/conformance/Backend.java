package org.roce4j.conformance;

import java.util.List;
import java.util.Objects;

import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;
import org.junit.platform.engine.support.store.Namespace;
import org.junit.platform.engine.support.store.NamespacedHierarchicalStore;
import org.roce4j.verbs.Device;
import org.roce4j.verbs.Errno;
import org.roce4j.verbs.Verbs;
import org.roce4j.verbs.VerbsException;
import org.roce4j.verbs.spi.VerbsProvider;

/**
 * The backend under test, handed to each test class's constructor by {@link Resolver}. Either the devices
 * {@link ConformanceSuite#run} was given (one device means two contexts on it, loopback, as on a single
 * real RNIC), or as applications choose them: {@code -Droce4j.provider=…} (the build sets
 * {@code emulator}), and its two first devices when it has two. The provider is looked up when a test
 * asks, so a missing one fails each test with its ENODEV rather than the run.
 */
final class Backend {
    /** Where {@link ConformanceSuite#run} leaves the backend for the tests of its launcher session. */
    private static final String STORE_NAMESPACE = Backend.class.getName();

    private final Device chosenFirst;
    private final Device chosenSecond;

    private Backend(Device chosenFirst, Device chosenSecond) {
        this.chosenFirst = chosenFirst;
        this.chosenSecond = chosenSecond;
    }

    /** These devices (the same one twice for loopback). */
    static Backend on(Device first, Device second) {
        return new Backend(Objects.requireNonNull(first, "first"), Objects.requireNonNull(second, "second"));
    }

    /** The devices of the provider {@code roce4j.provider} selects, as applications find them. */
    static Backend selectedProvider() {
        return new Backend(null, null);
    }

    /** Leaves this backend in a launcher session's store, for {@link Resolver} to hand to the tests it runs. */
    void storeIn(NamespacedHierarchicalStore<Namespace> launcherSessionStore) {
        launcherSessionStore.put(Namespace.create(STORE_NAMESPACE), Backend.class, this);
    }

    /** {@return the provider of the devices under test} */
    VerbsProvider provider() {
        Device chosen = chosenFirst;
        if (chosen == null) {
            return Verbs.provider();
        }
        return Verbs.provider(chosen.providerName()).orElseThrow(() -> new VerbsException(Errno.ENODEV,
                "no Verbs provider named '" + chosen.providerName() + "' on the class path"));
    }

    Device firstDevice() {
        if (chosenFirst != null) {
            return chosenFirst;
        }
        List<Device> devices = provider().devices();
        if (devices.isEmpty()) {
            throw new IllegalStateException("provider " + provider().name() + " lists no devices");
        }
        return devices.getFirst();
    }

    Device secondDevice() {
        if (chosenSecond != null) {
            return chosenSecond;
        }
        List<Device> devices = provider().devices();
        return devices.size() > 1 ? devices.get(1) : firstDevice();
    }

    /**
     * Resolves a test class's {@code Backend} constructor parameter: the one {@link ConformanceSuite#run}
     * stored in the launcher session, or else (surefire, an IDE) {@link #selectedProvider()}.
     */
    static final class Resolver implements ParameterResolver {
        @Override
        public boolean supportsParameter(ParameterContext parameter, ExtensionContext extension) {
            return parameter.getParameter().getType() == Backend.class;
        }

        @Override
        public Backend resolveParameter(ParameterContext parameter, ExtensionContext extension) {
            Backend stored = extension.getStore(ExtensionContext.StoreScope.LAUNCHER_SESSION,
                    ExtensionContext.Namespace.create(STORE_NAMESPACE)).get(Backend.class, Backend.class);
            return stored != null ? stored : selectedProvider();
        }
    }
}
