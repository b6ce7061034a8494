package org.roce4j.tools;

import java.util.function.IntConsumer;

/**
 * What the peer commands (pingpongs, devices, devinfo, rping, udaddy) take from their surroundings:
 * where devices and rdma_cm event channels come from, and whom to tell when a server listens. A
 * real run uses {@link #system()}; tests give the commands devices of their own fabric and learn the
 * port a server bound.
 */
record PeerEnvironment(DeviceSelector devices, IntConsumer listening, CmDevices connectionManagers) {
    /** The devices and listener of a test, with the system's connection managers. */
    PeerEnvironment(DeviceSelector devices, IntConsumer listening) {
        this(devices, listening, CmDevices.system());
    }

    static PeerEnvironment system() {
        return new PeerEnvironment(DeviceSelector.system(), port -> { }, CmDevices.system());
    }
}
