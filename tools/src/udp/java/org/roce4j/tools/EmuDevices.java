package org.roce4j.tools;

import org.roce4j.emulator.udp.UdpRnic;

/**
 * {@code -d emu:ADDRESS} / {@code -d emu:IFNAME}: an emulated RNIC speaking RoCEv2 on UDP port 4791
 * of that address or interface ({@link UdpRnic}), made for one command run and closed after it.
 *
 * <p>Waiting for the {@code udp} branch: this file is outside Maven's source path until UdpRnic is
 * merged; then it replaces the placeholder of the same name in {@code tools/src/main/java}
 * ({@code git mv -f tools/src/udp/java/org/roce4j/tools/EmuDevices.java tools/src/main/java/org/roce4j/tools/EmuDevices.java}).
 */
final class EmuDevices {
    /** The device name {@code -d emu:...} devices get (what the pingpongs and devinfo print). */
    static final String NAME = "emu0";

    private EmuDevices() {}

    static DeviceSelector.Selection open(String spec) {
        UdpRnic rnic = UdpRnic.open(NAME, spec);
        return new DeviceSelector.Selection(rnic.device(), rnic);
    }
}
