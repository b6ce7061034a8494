package org.roce4j.conformance;

import java.util.List;

import org.roce4j.verbs.Device;
import org.roce4j.verbs.Errno;
import org.roce4j.verbs.Verbs;
import org.roce4j.verbs.VerbsException;
import org.roce4j.verbs.spi.VerbsProvider;

/**
 * The backend under test. Either the devices {@link ConformanceSuite#run} was given (one device means
 * two contexts on it, loopback, as on a single real RNIC), or as applications choose them:
 * {@code -Droce4j.provider=…} (the build sets {@code emulator}), and its two first devices when it
 * has two.
 */
final class Backend {
    private static volatile Device chosenFirst;
    private static volatile Device chosenSecond;

    private Backend() {
    }

    /** Tests from now on run on these devices (the same one twice for loopback). */
    static void use(Device first, Device second) {
        chosenFirst = first;
        chosenSecond = second;
    }

    /** {@return the provider of the devices under test} */
    static VerbsProvider provider() {
        Device chosen = chosenFirst;
        if (chosen == null) {
            return Verbs.provider();
        }
        return Verbs.provider(chosen.providerName()).orElseThrow(() -> new VerbsException(Errno.ENODEV,
                "no Verbs provider named '" + chosen.providerName() + "' on the class path"));
    }

    static Device firstDevice() {
        Device chosen = chosenFirst;
        if (chosen != null) {
            return chosen;
        }
        List<Device> devices = provider().devices();
        if (devices.isEmpty()) {
            throw new IllegalStateException("provider " + provider().name() + " lists no devices");
        }
        return devices.getFirst();
    }

    static Device secondDevice() {
        Device chosen = chosenSecond;
        if (chosen != null) {
            return chosen;
        }
        List<Device> devices = provider().devices();
        return devices.size() > 1 ? devices.get(1) : firstDevice();
    }
}
