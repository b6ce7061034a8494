package org.roce4j.examples;

import java.util.List;

import org.roce4j.verbs.Device;
import org.roce4j.verbs.Errno;
import org.roce4j.verbs.Verbs;
import org.roce4j.verbs.VerbsException;

/**
 * The two devices an example runs on, from its command line: {@code --server NAME --client NAME}
 * (the same name twice is fine: a loopback through one RNIC). Without them, the first two devices
 * of the provider that {@code -Droce4j.provider=emulator|ibverbs} picks (the first one twice if it
 * has only one). With the emulator these are {@code rxe0} and {@code rxe1} of its default fabric.
 *
 * @param server the device of the side that serves
 * @param client the device of the side that asks
 */
public record ExampleDevices(Device server, Device client) {

    /**
     * {@return the devices the arguments name}
     *
     * @param args the example's command line
     * @throws IllegalArgumentException for an unknown option
     * @throws VerbsException ENODEV when a named device does not exist
     */
    public static ExampleDevices from(String... args) {
        String server = null;
        String client = null;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--server" -> server = value(args, ++i);
                case "--client" -> client = value(args, ++i);
                default -> throw new IllegalArgumentException("unknown option " + args[i]
                        + " (usage: [--server DEVICE] [--client DEVICE], -Droce4j.provider=NAME)");
            }
        }
        List<Device> devices = Verbs.provider().devices();
        if (devices.isEmpty()) {
            throw new VerbsException(Errno.ENODEV, "the provider has no devices");
        }
        Device serverDevice = server != null ? named(devices, server) : devices.getFirst();
        Device clientDevice = client != null ? named(devices, client) : devices.get(Math.min(1, devices.size() - 1));
        return new ExampleDevices(serverDevice, clientDevice);
    }

    private static String value(String[] args, int i) {
        if (i >= args.length) {
            throw new IllegalArgumentException(args[i - 1] + " needs a device name");
        }
        return args[i];
    }

    private static Device named(List<Device> devices, String name) {
        return devices.stream().filter(d -> d.name().equals(name)).findFirst()
                .orElseThrow(() -> new VerbsException(Errno.ENODEV, "no device " + name + " (found "
                        + devices.stream().map(Device::name).toList() + ")"));
    }
}
