package org.roce4j.testkit;

import java.net.InetAddress;
import java.util.Objects;

import org.roce4j.emulator.EmulatedCm;
import org.roce4j.emulator.SoftRnic;
import org.roce4j.verbs.Context;
import org.roce4j.verbs.Device;
import org.roce4j.verbs.Gid;

/**
 * One emulated RNIC of a test's fabric: its device, a context the extension opened for the test
 * (and closes after it), its address and GID, and the RNIC's counters.
 */
public final class RdmaNode {
    /** The port every emulated RNIC has: port 1. */
    public static final int PORT = 1;
    /** GID index 1: the IPv4-mapped GID ({@code ::ffff:a.b.c.d}), what RoCEv2 over IPv4 uses. */
    public static final int GID_INDEX = 1;

    private final int index;
    private final Device device;
    private final InetAddress address;
    private final SoftRnic rnic;
    private final ResourceTracker tracker;
    private final CmEventLog cmEvents;
    private Context context;
    private EmulatedCm connectionManager;

    RdmaNode(int index, Device trackedDevice, InetAddress address, SoftRnic rnic, ResourceTracker tracker,
             CmEventLog cmEvents) {
        this.index = index;
        this.device = Objects.requireNonNull(trackedDevice, "device");
        this.address = address;
        this.rnic = rnic;
        this.tracker = tracker;
        this.cmEvents = cmEvents;
    }

    /** {@return the node's place in the fabric, from 0} */
    public int index() {
        return index;
    }

    /** {@return the device name: {@code rxe0}, {@code rxe1}, …} */
    public String name() {
        return device.name();
    }

    /**
     * {@return the device, as {@code ibv_get_device_list} lists it}: contexts the test opens from it
     * itself are the test's to close (a context left open is reported as a leak).
     */
    public Device device() {
        return device;
    }

    /** {@return the context the extension opened on this node for the test; closed after the test} */
    public synchronized Context context() {
        if (context == null) {
            context = device.open();
            tracker.ownedByTestkit(context);
        }
        return context;
    }

    /**
     * {@return rdma_cm on this node: the node is one host ({@code EmulatedCm.of} its RNIC, made once),
     * as two machines would each be} Its event channels and ids reach the other nodes over the test's
     * fabric; the events it raises appear in the failure report. The CM opens a device context of its
     * own ({@code id.verbs()}): verbs objects made on it are not counted as leaks, close them anyway
     * (or let {@link QpPair#rcThroughCm} do it all).
     *
     * @throws IllegalStateException when the test made a host over this node's RNIC itself
     */
    public synchronized EmulatedCm connectionManager() {
        if (connectionManager == null) {
            connectionManager = EmulatedCm.of(rnic);
            connectionManager.recordEvents(event -> cmEvents.record(name(), event));
        }
        return connectionManager;
    }

    /** {@return the node's IP address: 10.0.0.N in process, 127.0.0.N on the UDP link} */
    public InetAddress address() {
        return address;
    }

    /** {@return the port's GID at {@link #GID_INDEX}, what a peer puts in its address vector} */
    public Gid gid() {
        return Gid.of(address);
    }

    /** {@return the emulated RNIC, for its counters (retransmissions, NAKs, drops by reason)} */
    public SoftRnic rnic() {
        return rnic;
    }

    @Override
    public String toString() {
        return name() + " (" + address.getHostAddress() + ")";
    }
}
