package org.roce4j.ibverbs;

import java.lang.foreign.MemorySegment;

import org.roce4j.verbs.Context;
import org.roce4j.verbs.Device;

/** A {@code struct ibv_device *} of the device list. */
final class IbvDevice implements Device {
    private final LibIbverbs lib;
    final MemorySegment device;
    private final String name;
    private final long guid;

    IbvDevice(LibIbverbs lib, MemorySegment device) {
        this.lib = lib;
        this.device = device;
        this.name = ((MemorySegment) LibIbverbs.call(lib.getDeviceName, device)).getString(0);
        // ibv_get_device_guid returns the __be64 as stored: swap it to the number ibv_devices prints.
        this.guid = Long.reverseBytes((long) LibIbverbs.call(lib.getDeviceGuid, device));
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public long guid() {
        return guid;
    }

    @Override
    public String providerName() {
        return IbverbsProvider.NAME;
    }

    @Override
    public Context open() {
        MemorySegment context = LibIbverbs.pointer("ibv_open_device(" + name + ")", lib.openDevice, device);
        return new IbvContext(lib, this, context);
    }

    @Override
    public String toString() {
        return name + " (ibverbs)";
    }
}
