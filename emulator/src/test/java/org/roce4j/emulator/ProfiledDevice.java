package org.roce4j.emulator;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.UnknownHostException;

import org.roce4j.emulator.fabric.Fabric;
import org.roce4j.verbs.Context;
import org.roce4j.wire.MacAddress;

/** One emulated device of a profile on a fabric of its own, for tests of what a profile reports and refuses. */
final class ProfiledDevice {
    private ProfiledDevice() {
    }

    /** {@return a context on a new device "rxe0" with the profile's model, on a deterministic fabric} */
    static Context open(DeviceProfile profile) {
        try {
            return SoftRnic.builder(Fabric.deterministic()).name("rxe0").mac(MacAddress.parse("02:00:00:00:00:01"))
                    .ipv4((Inet4Address) InetAddress.getByName("10.0.0.1")).profile(profile.model()).attach()
                    .device().open();
        } catch (UnknownHostException e) {
            throw new AssertionError(e);
        }
    }
}
