package org.roce4j.emulator.verbs;

import org.roce4j.emulator.DeviceModel;
import org.roce4j.emulator.EmulatorProvider;
import org.roce4j.emulator.node.Rnic;
import org.roce4j.verbs.Context;
import org.roce4j.verbs.Device;

/** An emulated node's device; every {@link #open} is a new context on the same RNIC. */
public final class EmulatedDevice implements Device {
    private final Rnic rnic;

    public EmulatedDevice(Rnic rnic) {
        this.rnic = rnic;
    }

    @Override
    public String name() {
        return rnic.name;
    }

    /** rxe's node GUID: the modified EUI-64 of the MAC, as a number. */
    @Override
    public long guid() {
        return rnic.nodeGuid;
    }

    /** {@return the device this one models: its profile's name, limits and quirks} */
    public DeviceModel model() {
        return rnic.model;
    }

    @Override
    public String providerName() {
        return EmulatorProvider.NAME;
    }

    @Override
    public Context open() {
        return new EmulatedContext(rnic, this);
    }

    @Override
    public String toString() {
        return rnic.name;
    }
}
