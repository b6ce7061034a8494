package org.roce4j.tools;

import java.util.function.IntConsumer;

/**
 * What the peer commands (pingpongs, devices, devinfo) take from their surroundings: where devices
 * come from, and whom to tell when a server listens. A real run uses {@link #system()}; tests give
 * the commands devices of their own fabric and learn the port a server bound.
 */
record PeerEnvironment(DeviceSelector devices, IntConsumer listening) {
    static PeerEnvironment system() {
        return new PeerEnvironment(DeviceSelector.system(), port -> { });
    }
}
