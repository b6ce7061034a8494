package org.roce4j.tools;

/**
 * {@code -d emu:ADDRESS} / {@code -d emu:IFNAME}: an emulated RNIC on a UDP socket
 * ({@code org.roce4j.emulator.udp.UdpRnic}).
 *
 * <p>PLACEHOLDER until the {@code udp} branch (UdpRnic) is merged: this build has no UDP emulator,
 * so {@code emu:} fails with one clear line. The real implementation, written against
 * {@code UdpRnic.open(String name, String spec)}, waits in
 * {@code tools/src/udp/java/org/roce4j/tools/EmuDevices.java} (outside Maven's source path); after the
 * merge, replace this file with it:
 * <pre>git mv -f tools/src/udp/java/org/roce4j/tools/EmuDevices.java tools/src/main/java/org/roce4j/tools/EmuDevices.java</pre>
 * Nothing else changes: {@link DeviceSelector#system()} already routes {@code emu:} here.
 */
final class EmuDevices {
    private EmuDevices() {}

    static DeviceSelector.Selection open(String spec) {
        throw new UnsupportedOperationException(
                "this build has no UDP emulator (org.roce4j.emulator.udp.UdpRnic) yet");
    }
}
