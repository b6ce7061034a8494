package org.roce4j.conformance;

import java.util.List;

import org.roce4j.verbs.Device;
import org.roce4j.verbs.Verbs;
import org.roce4j.verbs.spi.VerbsProvider;

/**
 * The backend under test, chosen the way applications choose it: {@code -Droce4j.provider=…}
 * (the build sets {@code emulator}). Tests use two devices when the backend has two, and two
 * contexts on one device (loopback, as on a single real RNIC) otherwise.
 */
final class Backend {
    private Backend() {
    }

    static VerbsProvider provider() {
        return Verbs.provider();
    }

    static Device firstDevice() {
        List<Device> devices = provider().devices();
        if (devices.isEmpty()) {
            throw new IllegalStateException("provider " + provider().name() + " lists no devices");
        }
        return devices.getFirst();
    }

    static Device secondDevice() {
        List<Device> devices = provider().devices();
        return devices.size() > 1 ? devices.get(1) : firstDevice();
    }
}
