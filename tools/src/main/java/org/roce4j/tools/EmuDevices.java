package org.roce4j.tools;

import java.io.IOException;
import java.io.UncheckedIOException;

import org.roce4j.emulator.udp.UdpRnic;

/**
 * {@code -d emu:ADDRESS} / {@code -d emu:IFNAME}: an emulated RNIC speaking RoCEv2 on UDP port 4791
 * of that address or interface ({@link UdpRnic}), made for one command run and closed after it.
 */
final class EmuDevices {
    /** The device name {@code -d emu:...} devices get (what the pingpongs and devinfo print). */
    static final String NAME = "emu0";

    private EmuDevices() {}

    /** @throws UncheckedIOException when the address is not this host's or ADDRESS:4791 cannot be bound */
    static DeviceSelector.Selection open(String spec) {
        try {
            UdpRnic rnic = UdpRnic.open(NAME, spec);
            return new DeviceSelector.Selection(rnic.device(), rnic);
        } catch (IOException e) {
            throw new UncheckedIOException("emu:" + spec + ": " + e.getMessage(), e);
        }
    }
}
