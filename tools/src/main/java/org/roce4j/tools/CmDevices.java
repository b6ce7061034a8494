package org.roce4j.tools;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

import org.roce4j.cm.CmId;
import org.roce4j.cm.ConnectionManager;
import org.roce4j.cm.EventChannel;
import org.roce4j.verbs.Context;
import org.roce4j.verbs.Errno;
import org.roce4j.verbs.VerbsException;
import org.roce4j.verbs.spi.VerbsProvider;

/**
 * What {@code -d} means for the rdma_cm tools (rping, udaddy). librdmacm has no device option: an
 * id gets the device that owns the address it binds or resolves to. So:
 * <ul>
 *   <li>no {@code -d}: the provider's connection manager, the device is whichever owns the address
 *       ({@link CmId#verbs()} after bind or resolution), as librdmacm picks it;</li>
 *   <li>{@code -d NAME}: the same, and once the id has its device the tool checks that it is NAME
 *       and stops with a line saying which device the address belongs to when it is not;</li>
 *   <li>{@code -d emu:ADDRESS}: a new emulated RNIC speaking RoCEv2 over UDP on that host address,
 *       with its own connection manager ({@code EmulatedCm} over it, its host's one device), made
 *       for this run and closed after it.</li>
 * </ul>
 * Tests inject their own source of event channels (the emulator's default fabric).
 */
final class CmDevices {
    /** Opens the connection manager of {@code -d emu:SPEC}. */
    @FunctionalInterface
    interface EmulatedConnectionManagers {
        Selection open(String spec);
    }

    /**
     * Where the event channels come from, the device name {@code -d NAME} asked for (null: any), and
     * what must be closed after the run (the emulated RNIC of {@code emu:}).
     */
    record Selection(ConnectionManager channels, String wantedDevice, AutoCloseable owner) implements AutoCloseable {
        Selection {
            Objects.requireNonNull(channels, "channels");
        }

        /**
         * {@return empty when the id's device is the one {@code -d} named (or none was named), else the
         * line to print: which device the address belongs to}
         */
        Optional<String> mismatch(CmId id) {
            if (wantedDevice == null) {
                return Optional.empty();
            }
            String actual = id.verbs().map(Context::device).map(d -> d.name()).orElse("no device");
            return actual.equals(wantedDevice) ? Optional.empty()
                    : Optional.of("-d " + wantedDevice + ": the address " + id.localAddress().getAddress().getHostAddress()
                            + " belongs to " + actual + ", not " + wantedDevice + " (librdmacm picks the device by address)");
        }

        @Override
        public void close() throws Exception {
            if (owner != null) {
                owner.close();
            }
        }
    }

    private final ConnectionManager channels;
    private final EmulatedConnectionManagers emulated;

    CmDevices(ConnectionManager channels, EmulatedConnectionManagers emulated) {
        this.channels = Objects.requireNonNull(channels, "channels");
        this.emulated = Objects.requireNonNull(emulated, "emulated");
    }

    /** A real run: {@link #systemConnectionManager()}, {@code emu:} through {@link EmuDevices}. */
    static CmDevices system() {
        return new CmDevices(systemConnectionManager(), EmuDevices::openConnectionManager);
    }

    /**
     * The connection manager of a real run: the first of {@link DeviceSelector#systemProviders()}
     * that has one — librdmacm on a host with an RDMA device before the in-process emulator's
     * default fabric, whose devices (10.0.0.x) own none of the host's addresses. None: ENODEV, with
     * each provider's reason.
     */
    static ConnectionManager systemConnectionManager() {
        return () -> {
            List<String> reasons = new ArrayList<>();
            for (VerbsProvider provider : DeviceSelector.systemProviders()) {
                String why = provider.whyNoConnectionManager();
                if (why.isEmpty()) {
                    return provider.createEventChannel();
                }
                reasons.add(provider.name() + ": " + why);
            }
            throw new VerbsException(Errno.ENODEV, "no provider with a connection manager " + reasons);
        };
    }

    /** {@return the selection {@code -d} asks for} */
    Selection select(String device) {
        if (device != null && device.startsWith(DeviceSelector.EMULATED_PREFIX)) {
            return emulated.open(device.substring(DeviceSelector.EMULATED_PREFIX.length()));
        }
        return new Selection(channels, device, null);
    }

    /**
     * {@link #select} and the first event channel, as the C tools' {@code create_event_channel}: on
     * failure prints "No RDMA devices were detected" (ENODEV) or perror's line, and returns null.
     */
    Opened openOrReport(String device, PrintWriter err) {
        Selection selection;
        try {
            selection = select(device);
        } catch (RuntimeException e) {
            err.println("Couldn't open device " + device + ": " + e.getMessage());
            return null;
        }
        try {
            return new Opened(selection, selection.channels().createEventChannel());
        } catch (VerbsException e) {
            err.println(e.errno() == org.roce4j.verbs.Errno.ENODEV ? "No RDMA devices were detected"
                    : "failed to create RDMA CM event channel: " + e.errno().text() + " (" + e.getMessage() + ")");
        } catch (RuntimeException e) {
            err.println("failed to create RDMA CM event channel: " + e.getMessage());
        }
        closeQuietly(selection);
        return null;
    }

    /** A selection and its first channel; closing closes both, channel first. */
    record Opened(Selection selection, EventChannel channel) implements AutoCloseable {
        @Override
        public void close() {
            closeQuietly(channel); // rdma_destroy_event_channel returns nothing
            closeQuietly(selection);
        }
    }

    /** Closes, ignoring failure: the rdma_cm examples free their resources without looking at the results. */
    static void closeQuietly(AutoCloseable closeable) {
        if (closeable == null) {
            return;
        }
        try {
            closeable.close();
        } catch (Exception ignored) {
            // the run's outcome is already decided
        }
    }
}
