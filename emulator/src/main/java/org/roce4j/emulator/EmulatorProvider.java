package org.roce4j.emulator;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.List;

import org.roce4j.emulator.fabric.Fabric;
import org.roce4j.cm.EventChannel;
import org.roce4j.verbs.Device;
import org.roce4j.verbs.spi.VerbsProvider;
import org.roce4j.wire.MacAddress;

/**
 * The emulated RNIC as a Verbs backend ({@code -Droce4j.provider=emulator}).
 *
 * <p>{@link #devices()} are the two nodes of one default fabric, created on first use and shared by
 * the whole JVM: a {@linkplain Fabric#deterministic() deterministic} fabric (virtual time, no
 * threads; polling drives it) with
 * <ul>
 *   <li>{@code rxe0}: MAC 02:00:00:00:00:01, IPv4 10.0.0.1 (GID 1 {@code ::ffff:10.0.0.1}),</li>
 *   <li>{@code rxe1}: MAC 02:00:00:00:00:02, IPv4 10.0.0.2 (GID 1 {@code ::ffff:10.0.0.2}),</li>
 * </ul>
 * both with active MTU 1024, as two Soft-RoCE devices on 1500-byte Ethernet would be, modelling the
 * {@link DeviceOptions#fromSystemProperties() profile the system properties name}
 * ({@code -Droce4j.emulator.profile=rxe-6.12}; {@code linux} by default). Programs that
 * want their own fabric (a pcap tap, threads, more nodes) use {@link SoftRnic#attach}.
 */
public final class EmulatorProvider implements VerbsProvider {
    public static final String NAME = "emulator";

    /** The default fabric and its nodes, made when first asked for (class-holder idiom). */
    private static final class DefaultFabric {
        static final Fabric FABRIC = Fabric.deterministic();
        static final List<SoftRnic> NODES = List.of(
                node("rxe0", "02:00:00:00:00:01", "10.0.0.1"),
                node("rxe1", "02:00:00:00:00:02", "10.0.0.2"));
        static final List<Device> DEVICES = NODES.stream().map(SoftRnic::device).toList();

        private static SoftRnic node(String name, String mac, String ipv4) {
            try {
                return DeviceOptions.fromSystemProperties().applyTo(SoftRnic.builder(FABRIC)).name(name)
                        .mac(MacAddress.parse(mac)).ipv4((Inet4Address) InetAddress.getByName(ipv4)).attach();
            } catch (UnknownHostException impossible) {
                throw new AssertionError(impossible);
            }
        }
    }

    /** The JVM as one host with both default devices, made when first asked for. */
    private static final class DefaultHost {
        static final EmulatedCm CM = EmulatedCm.over(DefaultFabric.NODES);
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public List<Device> devices() {
        return DefaultFabric.DEVICES;
    }

    /**
     * {@return an rdma_cm event channel on the default fabric: the JVM is one host whose devices
     * are rxe0 and rxe1 (10.0.0.1 and 10.0.0.2), so a connection between them is a loopback-free
     * exchange of CM MADs on the fabric}
     */
    @Override
    public EventChannel createEventChannel() {
        return DefaultHost.CM.createEventChannel();
    }

    @Override
    public String whyNoConnectionManager() {
        return "";
    }

    /** The fabric behind {@link #devices()}, for tests that want to drive it, tap it or read its counters. */
    public static Fabric defaultFabric() {
        return DefaultFabric.FABRIC;
    }
}
