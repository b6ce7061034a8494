package org.roce4j.emulator;

import java.util.Arrays;
import java.util.List;
import java.util.function.Consumer;
import org.roce4j.cm.ConnectionManager;
import org.roce4j.cm.EventChannel;
import org.roce4j.emulator.cm.RdmaCmHost;

/**
 * rdma_cm over emulated devices of one's own fabric: the devices of one host (they share port
 * bindings, and an address one of them owns is reached by loopback), as the RDMA devices of one
 * Linux machine are. {@link EmulatorProvider#createEventChannel()} is this over the default fabric's
 * {@code rxe0} and {@code rxe1}.
 *
 * <pre>{@code
 * Fabric fabric = Fabric.deterministic();
 * SoftRnic server = SoftRnic.attach(fabric, "rxe0", mac0, ip0), client = SoftRnic.attach(fabric, "rxe1", mac1, ip1);
 * EventChannel serverChannel = EmulatedCm.of(server).createEventChannel();   // two hosts, one device each
 * EventChannel clientChannel = EmulatedCm.of(client).createEventChannel();
 * }</pre>
 */
public final class EmulatedCm implements ConnectionManager {
    private final RdmaCmHost host;

    private EmulatedCm(RdmaCmHost host) {
        this.host = host;
    }

    /**
     * {@return the host of these devices}
     *
     * @throws IllegalStateException when a device belongs to another host already
     */
    public static EmulatedCm of(SoftRnic... devices) {
        return new EmulatedCm(RdmaCmHost.over(Arrays.stream(devices).map(SoftRnic::rnic).toList()));
    }

    /** {@return a new event channel of this host ({@code rdma_create_event_channel})} */
    @Override
    public EventChannel createEventChannel() {
        return host.createEventChannel();
    }

    /**
     * {@return what the CM holds now on this host's devices — connections (timewait included),
     * timers, bound ports, stray MADs — for a test that checks nothing is left behind}
     */
    public RdmaCmHost.Footprint footprint() {
        return host.footprint();
    }

    /**
     * Hands every CM event this host raises from now on to {@code recorder} (the testkit prints them
     * when a test fails). It runs on the thread that raises the event, often holding a fabric lock:
     * record, do not block; a recorder that throws is dropped.
     *
     * @param recorder where events go; null stops recording
     */
    public void recordEvents(Consumer<RdmaCmHost.RaisedEvent> recorder) {
        host.recordEvents(recorder);
    }

    static EmulatedCm over(List<SoftRnic> devices) {
        return of(devices.toArray(new SoftRnic[0]));
    }
}
