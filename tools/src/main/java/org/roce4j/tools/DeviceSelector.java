package org.roce4j.tools;

import java.util.List;
import java.util.Objects;
import java.util.function.Supplier;

import org.roce4j.verbs.Device;
import org.roce4j.verbs.Verbs;
import org.roce4j.verbs.spi.VerbsProvider;

/**
 * What {@code -d} means for the peer commands (pingpongs, devinfo):
 * <ul>
 *   <li>no {@code -d}: the first device of the list, as {@code ibv_get_device_list()[0]};</li>
 *   <li>{@code -d NAME}: the device of that name in the list: the devices of the provider
 *       {@code -Droce4j.provider} names, or else of every available provider with the emulator's
 *       in-process {@code rxe0}/{@code rxe1} last, so that on a host with RDMA devices (libibverbs,
 *       the {@code ibverbs} provider) {@code -d rxe0} is the real one, as for the C tools;</li>
 *   <li>{@code -d emu:ADDRESS} or {@code -d emu:IFNAME}: a new emulated RNIC speaking RoCEv2 over UDP
 *       on that address or interface, made for this run and closed after it ({@link EmuDevices}).</li>
 * </ul>
 * Both sources are injected so that tests can hand the commands devices of their own fabric.
 */
final class DeviceSelector {
    /** The prefix of {@code -d} values that ask for a UDP emulated device. */
    static final String EMULATED_PREFIX = "emu:";

    /** Opens the device of {@code -d emu:SPEC}. */
    @FunctionalInterface
    interface EmulatedDevices {
        Selection open(String spec);
    }

    /**
     * The device picked, and what must be closed when the command is done with it (the emulated
     * RNIC of {@code emu:}, nothing for a listed device).
     */
    record Selection(Device device, AutoCloseable owner) implements AutoCloseable {
        Selection {
            Objects.requireNonNull(device, "device");
        }

        static Selection listed(Device device) {
            return new Selection(device, null);
        }

        @Override
        public void close() throws Exception {
            if (owner != null) {
                owner.close();
            }
        }
    }

    /** The selection failed; the message is the line the C tools print. */
    static final class NoSuchDevice extends Exception {
        NoSuchDevice(String message) {
            super(message, null, false, false);
        }
    }

    private final Supplier<List<Device>> list;
    private final EmulatedDevices emulated;

    DeviceSelector(Supplier<List<Device>> list, EmulatedDevices emulated) {
        this.list = Objects.requireNonNull(list, "list");
        this.emulated = Objects.requireNonNull(emulated, "emulated");
    }

    /** The selector of a real run: the Verbs providers' devices, and {@code emu:} through {@link EmuDevices}. */
    static DeviceSelector system() {
        return new DeviceSelector(DeviceSelector::systemDevices, EmuDevices::open);
    }

    /** The named provider's devices, or every available provider's with the in-process emulator's last. */
    private static List<Device> systemDevices() {
        List<Device> devices = new java.util.ArrayList<>();
        for (VerbsProvider provider : systemProviders()) {
            devices.addAll(provider.devices());
        }
        return devices;
    }

    /**
     * The providers the tools use, in order: the one {@code -Droce4j.provider} names, or every
     * available one with the in-process emulator last (a real device comes first, as on a host
     * with an RNIC nobody would want the emulator's default fabric).
     */
    static List<VerbsProvider> systemProviders() {
        String wanted = System.getProperty(Verbs.PROVIDER_PROPERTY);
        if (wanted != null && !wanted.isBlank()) {
            return List.of(Verbs.provider());
        }
        return Verbs.providers().stream().filter(VerbsProvider::isAvailable)
                .sorted(java.util.Comparator.comparing(p -> p.name().equals(EMULATOR_PROVIDER)))
                .toList();
    }

    /** The in-process emulator's provider name: its devices come after any real ones. */
    private static final String EMULATOR_PROVIDER = "emulator";

    /** A selector over a fixed list, {@code emu:} refused (for tests). */
    static DeviceSelector of(List<Device> devices) {
        return new DeviceSelector(() -> devices, spec -> {
            throw new IllegalArgumentException("emu: devices are not available here");
        });
    }

    /** {@return the devices {@code -d NAME} chooses from, in {@code ibv_get_device_list} order} */
    List<Device> devices() {
        return list.get();
    }

    /**
     * Picks the device {@code -d} names; null means the first one.
     *
     * @throws NoSuchDevice "No IB devices found" or "IB device NAME not found", as the C tools say it
     * @throws RuntimeException when an {@code emu:} device cannot be made (bad address, port in use, ...)
     */
    Selection select(String name) throws NoSuchDevice {
        if (name != null && name.startsWith(EMULATED_PREFIX)) {
            return emulated.open(name.substring(EMULATED_PREFIX.length()));
        }
        List<Device> devices = list.get();
        if (name == null) {
            if (devices.isEmpty()) {
                throw new NoSuchDevice("No IB devices found");
            }
            return Selection.listed(devices.getFirst());
        }
        for (Device device : devices) {
            if (device.name().equals(name)) {
                return Selection.listed(device);
            }
        }
        throw new NoSuchDevice("IB device " + name + " not found");
    }

    /**
     * As {@link #select}, for the peers: on failure prints the line the C tools print ("IB device
     * NAME not found", or why an {@code emu:} device could not be made) and returns null.
     */
    Selection selectOrReport(String name, java.io.PrintWriter err) {
        try {
            return select(name);
        } catch (NoSuchDevice e) {
            err.println(e.getMessage());
        } catch (RuntimeException e) {
            err.println("Couldn't open device " + name + ": " + e.getMessage());
        }
        return null;
    }
}
