package org.roce4j.tools;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.roce4j.cm.ConnectionManager;
import org.roce4j.emulator.EmulatedCm;
import org.roce4j.emulator.RnicCounter;
import org.roce4j.emulator.udp.UdpRnic;
import org.roce4j.verbs.Errno;
import org.roce4j.verbs.VerbsException;
import org.roce4j.wire.DropReason;

/**
 * {@code -d emu:ADDRESS} / {@code -d emu:IFNAME}: an emulated RNIC speaking RoCEv2 on UDP port 4791
 * of that address or interface ({@link UdpRnic}), made for one command run and closed after it.
 * With the environment variable {@value #COUNTERS_VARIABLE} set, closing it first prints the link's
 * and the RNIC's counters (and the non-zero drop reasons) to stderr, for diagnosing interop runs.
 */
final class EmuDevices {
    /** The device name {@code -d emu:...} devices get (what the pingpongs and devinfo print). */
    static final String NAME = "emu0";
    static final String COUNTERS_VARIABLE = "ROCE4J_EMU_COUNTERS";

    private EmuDevices() {}

    /** @throws UncheckedIOException when the address is not this host's or ADDRESS:4791 cannot be bound */
    static DeviceSelector.Selection open(String spec) {
        UdpRnic rnic = openRnic(spec);
        return new DeviceSelector.Selection(rnic.device(), owner(rnic));
    }

    /**
     * {@code -d emu:SPEC} for the rdma_cm tools: an emulated RNIC on that address with its own
     * connection manager (the RNIC is the one device of its host), closed after the run.
     *
     * @throws UncheckedIOException when the address is not this host's or ADDRESS:4791 cannot be bound
     */
    static CmDevices.Selection openConnectionManager(String spec) {
        UdpRnic rnic = openRnic(spec);
        return new CmDevices.Selection(EmulatedCm.of(rnic.rnic()), null, owner(rnic));
    }

    /**
     * perftest {@code -R} on {@code -d emu:SPEC}: one emulated RNIC is both the device the tool opens
     * and the one its rdma_cm ids get (perftest creates its test QPs on the ids), so the selector that
     * opens it also makes the connection manager over it. The connection manager has no device
     * until the selector has opened it (ENODEV).
     */
    static final class SharedWithConnectionManager {
        private volatile EmulatedCm cm;

        DeviceSelector selector() {
            return new DeviceSelector(List::of, spec -> {
                UdpRnic rnic = openRnic(spec);
                cm = EmulatedCm.of(rnic.rnic());
                return new DeviceSelector.Selection(rnic.device(), owner(rnic));
            });
        }

        ConnectionManager connectionManager() {
            return () -> {
                EmulatedCm opened = cm;
                if (opened == null) {
                    throw new VerbsException(Errno.ENODEV, "the emu: device is not open yet");
                }
                return opened.createEventChannel();
            };
        }
    }

    private static UdpRnic openRnic(String spec) {
        try {
            return UdpRnic.open(NAME, spec);
        } catch (IOException e) {
            throw new UncheckedIOException("emu:" + spec + ": " + e.getMessage(), e);
        }
    }

    /** What closes the RNIC: with {@value #COUNTERS_VARIABLE} set, after printing its counters. */
    private static AutoCloseable owner(UdpRnic rnic) {
        return System.getenv(COUNTERS_VARIABLE) == null ? rnic : () -> {
            System.err.println(counters(rnic));
            rnic.close();
        };
    }

    /** The link's counters, the RNIC's non-zero counters and drop reasons, and the bound addresses. */
    static String counters(UdpRnic rnic) {
        Map<String, Long> rnicCounters = new TreeMap<>();
        for (Map.Entry<RnicCounter, Long> c : rnic.rnic().counters().entrySet()) {
            if (c.getValue() != 0) {
                rnicCounters.put(c.getKey().name(), c.getValue());
            }
        }
        Map<String, Long> drops = new TreeMap<>();
        for (DropReason reason : DropReason.values()) {
            long n = rnic.rnic().dropped(reason);
            if (n != 0) {
                drops.put(reason.name(), n);
            }
        }
        return "emu: bound " + rnic.boundAddresses() + "\nemu: " + rnic.linkCounters() + "\nemu: rnic " + rnicCounters
                + "\nemu: drops " + drops;
    }
}
